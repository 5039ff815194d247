// How the direct fan-out's time and peak memory grow with the number of hosts: the CLI over the
// first N compute hosts, every host at once (fan-out N: every connection open together, the worst
// case for memory), sizes taken in turn within each round so drift falls on all of them.
import { gdrFanOut } from './fleetSides';
import { inRotation, summarize } from './stats';

export interface ScalePoint {
  readonly hosts: number;
  readonly ms: number[];
  readonly rssKiB: number[];
}

export async function measureScale(
  sizes: readonly number[],
  nodes: readonly string[],
  rounds: number,
  sshConfigPath: string,
): Promise<ScalePoint[]> {
  const points = sizes.map((hosts) => ({ hosts, ms: [] as number[], rssKiB: [] as number[] }));
  for (let i = 0; i < rounds; i++) {
    await inRotation(
      i,
      points.map((p) => async () => {
        const r = await gdrFanOut(nodes.slice(0, p.hosts), p.hosts, sshConfigPath);
        p.ms.push(r.ms);
        p.rssKiB.push(r.value.maxRssKiB);
      }),
    );
  }
  return points;
}

const mib = (kib: number) => kib / 1024;

/** The table, the growth from each size to the next, and the memory target. */
export function printScale(points: readonly ScalePoint[]): void {
  const rows = points.map((p) => ({
    hosts: p.hosts,
    ms: summarize(p.ms).median,
    rss: mib(summarize(p.rssKiB).median),
    rssMax: mib(summarize(p.rssKiB).max),
    n: p.ms.length,
  }));
  console.log('  hosts  fan-out   median ms   ms/host   peak RSS MiB (median, max)   MiB/host');
  for (const r of rows) {
    console.log(
      `  ${String(r.hosts).padStart(5)}  ${String(r.hosts).padStart(7)}  ${r.ms.toFixed(0).padStart(10)}  ${(r.ms / r.hosts).toFixed(0).padStart(8)}   ` +
        `${r.rss.toFixed(1).padStart(12)}, ${r.rssMax.toFixed(1).padStart(6)}          ${(r.rss / r.hosts).toFixed(2).padStart(6)}   (n=${r.n})`,
    );
  }
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const perAdded = (b.rss - a.rss) / (b.hosts - a.hosts);
    console.log(
      `  ${a.hosts} -> ${b.hosts} hosts (x${(b.hosts / a.hosts).toFixed(2)}): time x${(b.ms / a.ms).toFixed(2)}, ` +
        `memory x${(b.rss / a.rss).toFixed(2)} (${perAdded >= 0 ? '+' : ''}${perAdded.toFixed(2)} MiB per added host)`,
    );
  }
  console.log(memoryTargetLine(rows));
}

/**
 * Linear growth: RSS = fixed + per-host x hosts. With three sizes or more, the two smallest fix the
 * line and the largest must not lie above it by more than 10% (noise of a few MiB); with two, the
 * memory ratio must not exceed the hosts ratio.
 */
function memoryTargetLine(rows: readonly { hosts: number; rss: number }[]): string {
  if (rows.length < 2) return '  (one size only: no growth to judge; give --sizes with two or more)';
  const last = rows[rows.length - 1];
  if (rows.length === 2) {
    const ok = last.rss / rows[0].rss <= last.hosts / rows[0].hosts;
    return (
      `  ${ok ? 'PASS' : 'MISS'}  memory grows no faster than linearly: memory x${(last.rss / rows[0].rss).toFixed(2)} ` +
      `for hosts x${(last.hosts / rows[0].hosts).toFixed(2)}`
    );
  }
  const [a, b] = rows;
  const slope = (b.rss - a.rss) / (b.hosts - a.hosts);
  const predicted = b.rss + slope * (last.hosts - b.hosts);
  const ok = last.rss <= predicted * 1.1;
  return (
    `  ${ok ? 'PASS' : 'MISS'}  memory grows no faster than linearly: ${last.rss.toFixed(1)} MiB at ${last.hosts} hosts, ` +
    `the line through ${a.hosts} and ${b.hosts} hosts says ${predicted.toFixed(1)} MiB (target <= +10%)`
  );
}
