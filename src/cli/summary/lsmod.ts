import { findModule, Lsmod } from '../../core/parsers/lsmod';

// The modules GPUDirect RDMA depends on, in the order a reader checks them.
const GDR_MODULES = ['nvidia', 'nvidia_peermem', 'nv_peer_mem', 'ib_core', 'ib_uverbs', 'mlx5_core', 'mlx5_ib'];

/** Loaded-module count, then the GPUDirect-relevant modules: loaded (with users) or not listed. */
export function summarizeLsmod(value: Lsmod): string {
  const source = value.hasHeader ? 'lsmod' : 'lsmod (filtered, no header)';
  if (value.modules.length === 0) return `${source}: no modules listed.`;
  const lines = [`${source}: ${value.modules.length} module(s)`];
  for (const name of GDR_MODULES) {
    const m = findModule(value, name);
    if (!m) {
      lines.push(`  ${name.padEnd(15)} not listed`);
      continue;
    }
    const users = m.usedBy.length > 0 ? ` by ${m.usedBy.join(', ')}` : '';
    lines.push(`  ${name.padEnd(15)} loaded, used ${m.useCount}x${users}${m.permanent ? ' [permanent]' : ''}`);
  }
  if (findModule(value, 'nvidia_peermem') && findModule(value, 'nv_peer_mem')) {
    lines.push('  note: both nvidia_peermem and the legacy nv_peer_mem are loaded; only one should be');
  }
  return lines.join('\n');
}
