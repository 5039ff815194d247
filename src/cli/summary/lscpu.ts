import { parseCpuList } from '../../core/parsers/cpuList';
import { Lscpu } from '../../core/parsers/lscpu';
import { t } from '../../core/l10n';

/** Architecture and model, the CPU count with its socket/core/thread split, then each NUMA node's CPUs. */
export function summarizeLscpu(value: Lscpu): string {
  const architecture = value.fields['Architecture'] ?? '?';
  const lines = [`lscpu: ${architecture}, ${value.modelName ?? t('(no model name)')}`];
  lines.push(`${t('CPUs: {0}', value.cpus)}${topologySplit(value)}`);
  const nodes = Object.entries(value.numaNodes).sort(([a], [b]) => Number(a) - Number(b));
  if (nodes.length === 0) {
    lines.push(t('NUMA: no "NUMA nodeN CPU(s)" lines'));
    return lines.join('\n');
  }
  lines.push(t('NUMA nodes: {0}', nodes.length));
  for (const [id, cpus] of nodes) {
    const list = parseCpuList(cpus);
    const count = list.ok ? list.value.length : 0;
    // A node without CPUs holds only memory (GPU memory on Grace Hopper, HBM, CXL) or nothing yet.
    lines.push(`  ${cpus === '' ? t('node {0}: no CPUs', id) : t('node {0}: {1} ({2} CPUs)', id, cpus, count)}`);
  }
  return lines.join('\n');
}

function topologySplit(value: Lscpu): string {
  const { sockets, coresPerSocket, threadsPerCore } = value;
  if (sockets === null || coresPerSocket === null || threadsPerCore === null) return '';
  return t(' ({0} socket(s) × {1} cores × {2} thread(s))', sockets, coresPerSocket, threadsPerCore);
}
