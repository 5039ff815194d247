// `npm run bench:relay`: the login-node relay at scale, through real `pdsh -R exec` (no sshd, no
// root): 1,024 and 4,096 simulated nodes each print a recorded probe stream (relayReplay.ts), and
// three sides read pdsh's output, each in a process of its own (relayRun.ts) so peak memory is its own:
//   pdsh alone   pdsh's output read and dropped;
//   streaming    the relay's demux: every node's stream split, decoded and handed on as it ends;
//   relay        relayDiagnose(): the demux plus runProbe and diagnose() per node, every node's report
//                checked against a direct parse of the stream it replayed.
// Prints times as ratios to pdsh alone and memory per node. See bench/README.md.
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { replayedStream } from './relayReplay';
import { inRotation, summarize } from './stats';

const SIDES = ['pdsh', 'stream', 'relay'] as const;
type Side = (typeof SIDES)[number];
const LABEL: Record<Side, string> = { pdsh: 'pdsh alone', stream: 'relay streaming (demux)', relay: 'relay + parse + diagnose' };
const USAGE = 'usage: npm run bench:relay [-- --sizes 1024,4096] [--fanout 32] [--rounds 1]';

interface RunResult {
  readonly ms: number;
  readonly maxRssKiB: number;
  readonly heapMiB: number;
  readonly mismatchCount: number;
  readonly mismatches: string[];
}

function parseOptions(argv: readonly string[]): { sizes: number[]; fanout: number; rounds: number } | null {
  const o = { sizes: [1024, 4096], fanout: 32, rounds: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ''];
    if (flag === '--help' || flag === '-h') return null;
    const nums = value.split(',').map(Number);
    if (!nums.every((n) => Number.isInteger(n) && n > 0))
      throw new Error(`${flag} needs whole numbers, got ${JSON.stringify(value)}\n${USAGE}`);
    if (flag === '--sizes') o.sizes = nums;
    else if (flag === '--fanout') o.fanout = nums[0];
    else if (flag === '--rounds') o.rounds = nums[0];
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  return o;
}

function runSide(side: Side, nodes: number, fanout: number): Promise<RunResult> {
  const tsx = path.join(__dirname, '../node_modules/.bin/tsx');
  return new Promise((resolve, reject) => {
    execFile(
      tsx,
      ['--expose-gc', path.join(__dirname, 'relayRun.ts'), side, String(nodes), String(fanout)],
      { maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${side} with ${nodes} nodes: ${stderr.trim() || err.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as RunResult);
      },
    );
  });
}

const mib = (kib: number) => kib / 1024;

const heapOf = (runs: readonly RunResult[]) => summarize(runs.map((r) => r.heapMiB)).median;

/** KiB of heap per node a side holds after a GC, beyond what the same process holds for pdsh alone. */
function heapPerNode(runs: Record<Side, RunResult[]>, side: Side, nodes: number): number {
  return ((heapOf(runs[side]) - heapOf(runs.pdsh)) * 1024) / nodes;
}

function printSize(nodes: number, runs: Record<Side, RunResult[]>): void {
  const base = summarize(runs.pdsh.map((r) => r.ms)).median;
  for (const side of SIDES) {
    const ms = summarize(runs[side].map((r) => r.ms));
    const rss = summarize(runs[side].map((r) => mib(r.maxRssKiB))).median;
    const ratio = side === 'pdsh' ? '      ' : `x${(ms.median / base).toFixed(2)}`.padStart(6);
    const perNode = side === 'pdsh' ? '      -' : heapPerNode(runs, side, nodes).toFixed(1).padStart(7);
    console.log(
      `  ${String(nodes).padStart(5)}  ${LABEL[side].padEnd(26)} ${(ms.median / 1000).toFixed(1).padStart(7)} s  ${ratio}   ` +
        `${rss.toFixed(0).padStart(6)} MiB   ${heapOf(runs[side]).toFixed(0).padStart(6)} MiB   ${perNode} KiB   (n=${ms.n})`,
    );
  }
}

/** Issue 23's target: a relay of 4,096 nodes (or the largest size run) peaks under 300 MiB resident, its outputs spilled to disk. */
const RELAY_RSS_TARGET_MIB = 300;

function printResidentTarget(sizes: readonly number[], all: Map<number, Record<Side, RunResult[]>>): void {
  const n = sizes[sizes.length - 1];
  const rss = summarize(all.get(n)!.relay.map((r) => mib(r.maxRssKiB))).median;
  const verdict = rss < RELAY_RSS_TARGET_MIB ? 'PASS' : 'MISS';
  console.log(
    `  ${verdict}  ${n} nodes: relay peak RSS ${rss.toFixed(0)} MiB (target: under ${RELAY_RSS_TARGET_MIB} MiB, raw outputs spilled)`,
  );
}

/** Memory targets between the smallest and largest size: streaming flat, the relay's held reports linear. */
function printGrowth(sizes: readonly number[], all: Map<number, Record<Side, RunResult[]>>): void {
  if (sizes.length < 2) return;
  const [a, b] = [sizes[0], sizes[sizes.length - 1]];
  const [perA, perB] = [heapPerNode(all.get(a)!, 'relay', a), heapPerNode(all.get(b)!, 'relay', b)];
  const rss = (n: number, side: Side) => summarize(all.get(n)![side].map((r) => mib(r.maxRssKiB))).median;
  const flat = perB <= perA * 1.1;
  console.log(
    `\n  ${flat ? 'PASS' : 'MISS'}  relay memory flat per node: ${perA.toFixed(1)} KiB held per node at ${a} nodes, ${perB.toFixed(1)} at ${b}` +
      ` (target: within +10%; what is held is each node's report and diagnosis)`,
  );
  const bounded = rss(b, 'stream') <= rss(a, 'stream') * 1.2;
  console.log(
    `  ${bounded ? 'PASS' : 'MISS'}  streaming memory bounded: ` +
      `peak RSS ${rss(a, 'stream').toFixed(0)} MiB at ${a} nodes, ${rss(b, 'stream').toFixed(0)} MiB at ${b}` +
      ` (target: within +20%; pdsh alone ${rss(a, 'pdsh').toFixed(0)}, ${rss(b, 'pdsh').toFixed(0)})`,
  );
  for (const n of sizes) {
    const r = all.get(n)!;
    const ratio = summarize(r.stream.map((x) => x.ms)).median / summarize(r.pdsh.map((x) => x.ms)).median;
    console.log(
      `  ${ratio <= 1.2 ? 'PASS' : 'MISS'}  ${n} nodes: streaming time dominated by pdsh: ratio ${ratio.toFixed(2)} (target <= 1.20)`,
    );
  }
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts === null) {
    console.log(USAGE);
    return 0;
  }
  const stream = replayedStream('gdr-doctor-00000000000000000000000000000000');
  console.log(
    `relay bench: pdsh -R exec, fan-out ${opts.fanout}, each node replaying a recorded probe stream ` +
      `(test/lab/profiles/healthy: ${(stream.length / 1024).toFixed(0)}` +
      ` KiB, ${((stream.length * 4) / 3 / 1024).toFixed(0)} KiB in base64); ${opts.rounds} round(s), sides in turn`,
  );
  console.log(
    `machine: ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; node ${process.version}`,
  );
  console.log('  nodes  side                          time      / pdsh   peak RSS   heap after GC, per node beyond pdsh alone');
  const all = new Map<number, Record<Side, RunResult[]>>();
  let broken = 0;
  for (const nodes of opts.sizes) {
    const runs: Record<Side, RunResult[]> = { pdsh: [], stream: [], relay: [] };
    for (let i = 0; i < opts.rounds; i++)
      await inRotation(
        i,
        SIDES.map((side) => async () => void runs[side].push(await runSide(side, nodes, opts.fanout))),
      );
    for (const r of runs.relay)
      if (r.mismatchCount > 0) {
        broken++;
        console.log(`  ${nodes} nodes: ${r.mismatchCount} reports differ from a direct parse: ${r.mismatches.join('; ')}`);
      }
    printSize(nodes, runs);
    all.set(nodes, runs);
  }
  printGrowth(opts.sizes, all);
  printResidentTarget(opts.sizes, all);
  console.log(
    `\nload average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (pdsh, its nodes and the relay share this machine's CPUs)`,
  );
  return broken > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
