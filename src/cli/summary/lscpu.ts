import { parseCpuList } from '../../core/parsers/cpuList';
import { Lscpu } from '../../core/parsers/lscpu';

/** Architecture and model, the CPU count with its socket/core/thread split, then each NUMA node's CPUs. */
export function summarizeLscpu(value: Lscpu): string {
  const architecture = value.fields['Architecture'] ?? '?';
  const lines = [`lscpu: ${architecture}, ${value.modelName ?? '(no model name)'}`];
  lines.push(`CPUs: ${value.cpus}${topologySplit(value)}`);
  const nodes = Object.entries(value.numaNodes).sort(([a], [b]) => Number(a) - Number(b));
  if (nodes.length === 0) {
    lines.push('NUMA: no "NUMA nodeN CPU(s)" lines');
    return lines.join('\n');
  }
  lines.push(`NUMA nodes: ${nodes.length}`);
  for (const [id, cpus] of nodes) {
    const list = parseCpuList(cpus);
    const count = list.ok ? list.value.length : 0;
    // A node without CPUs holds only memory (GPU memory on Grace Hopper, HBM, CXL) or nothing yet.
    lines.push(cpus === '' ? `  node ${id}: no CPUs` : `  node ${id}: ${cpus} (${count} CPUs)`);
  }
  return lines.join('\n');
}

function topologySplit(value: Lscpu): string {
  const { sockets, coresPerSocket, threadsPerCore } = value;
  if (sockets === null || coresPerSocket === null || threadsPerCore === null) return '';
  return ` (${sockets} socket(s) × ${coresPerSocket} cores × ${threadsPerCore} thread(s))`;
}
