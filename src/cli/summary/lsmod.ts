import { findModule, Lsmod } from '../../core/parsers/lsmod';
import { t } from '../../core/l10n';

// The modules GPUDirect RDMA depends on, in the order a reader checks them.
const GDR_MODULES = ['nvidia', 'nvidia_peermem', 'nv_peer_mem', 'ib_core', 'ib_uverbs', 'mlx5_core', 'mlx5_ib'];

/** Loaded-module count, then the GPUDirect-relevant modules: loaded (with users) or not listed. */
export function summarizeLsmod(value: Lsmod): string {
  const source = value.hasHeader ? 'lsmod' : t('lsmod (filtered, no header)');
  if (value.modules.length === 0) return `${source}: ${t('no modules listed.')}`;
  const lines = [`${source}: ${t('{0} module(s)', value.modules.length)}`];
  for (const name of GDR_MODULES) {
    const m = findModule(value, name);
    if (!m) {
      lines.push(`  ${name.padEnd(15)} ${t('not listed')}`);
      continue;
    }
    const used = m.usedBy.length > 0 ? t('loaded, used {0}x by {1}', m.useCount, m.usedBy.join(', ')) : t('loaded, used {0}x', m.useCount);
    lines.push(`  ${name.padEnd(15)} ${used}${m.permanent ? ' [permanent]' : ''}`);
  }
  if (findModule(value, 'nvidia_peermem') && findModule(value, 'nv_peer_mem')) {
    lines.push(`  ${t('note: both nvidia_peermem and the legacy nv_peer_mem are loaded; only one should be')}`);
  }
  return lines.join('\n');
}
