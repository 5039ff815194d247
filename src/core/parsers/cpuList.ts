// The Linux "cpulist" syntax ("0-31,64-95"), as printed by lscpu ("NUMA node0 CPU(s):"),
// sysfs (/sys/devices/system/node/node0/cpulist) and nvidia-smi topo's "CPU Affinity" column.
// Shared by several parsers, so it reports a reason instead of a located ParseError:
// the caller knows the line and wraps the reason into its own fail(line, ...).

/** Result of parseCpuList: the CPUs (sorted, without duplicates) or why the text is not a CPU list. */
export type CpuListResult = { readonly ok: true; readonly value: number[] } | { readonly ok: false; readonly reason: string };

/**
 * Highest CPU number accepted. Linux allows at most CONFIG_NR_CPUS = 8192 on x86 and 4096 on arm64;
 * the bound keeps a corrupt range such as "0-999999999" from allocating a huge array.
 */
export const MAX_CPU_ID = 65535;

const NUMBER = /^\d+$/;

/**
 * Parses "0-31,64-95" into [0, 1, …, 31, 64, …, 95]. Items are a number or "first-last" (first ≤ last),
 * separated by commas. Empty or blank text is an empty list: lscpu prints an empty
 * "NUMA node8 CPU(s):" for memory-only nodes, and a cgroup-restricted job sees an empty affinity.
 * The kernel's stride form ("0-31:2") never appears in these outputs and is refused.
 */
export function parseCpuList(text: string): CpuListResult {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, value: [] };
  const cpus = new Set<number>();
  for (const item of trimmed.split(',')) {
    const range = parseItem(item.trim());
    if (typeof range === 'string') return { ok: false, reason: `${range} in CPU list ${JSON.stringify(trimmed)}` };
    for (let cpu = range[0]; cpu <= range[1]; cpu++) cpus.add(cpu);
  }
  return { ok: true, value: [...cpus].sort((a, b) => a - b) };
}

/** One item: "5" or "0-31". Returns [first, last] or a reason. */
function parseItem(item: string): [number, number] | string {
  const dash = item.indexOf('-');
  const first = dash < 0 ? item : item.slice(0, dash);
  const last = dash < 0 ? item : item.slice(dash + 1);
  if (!NUMBER.test(first) || !NUMBER.test(last)) {
    return `expected a CPU number or a range like "0-31", found ${JSON.stringify(item)}`;
  }
  const from = Number(first);
  const to = Number(last);
  if (to > MAX_CPU_ID) return `CPU number ${to} is above ${MAX_CPU_ID}`;
  if (from > to) return `range ${JSON.stringify(item)} runs backwards`;
  return [from, to];
}

/**
 * Formats CPUs the way the kernel prints a cpulist (sysfs "cpulist"): ascending, consecutive runs
 * collapsed ("0-31,64-95"; a run of two is "4-5", where util-linux lscpu would print "4,5").
 * Duplicates are ignored; an empty list gives "".
 */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1] + 1) continue;
    if (start < sorted.length) {
      parts.push(start === i - 1 ? `${sorted[start]}` : `${sorted[start]}-${sorted[i - 1]}`);
    }
    start = i;
  }
  return parts.join(',');
}
