// `npm run bench:nccl-log`: how fast `gdr-doctor nccl-log` reads a big NCCL log, and in how much
// memory, side by side with grep -c and wc -l over the same file. See bench/README.md.
// The log is a 1,024-rank job built from real fixture lines (bench/ncclLogBig.ts). Before timing,
// the bench checks gdr-doctor read the whole job: every host and rank, every GDRDMA line grep counts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildBigLog, BigLog, GPUS_PER_HOST, HOSTS } from './ncclLogBig';
import { cliBuilt, gdrDoctor, grepCount, nodeReadline, Run, wcLines } from './ncclLogSides';
import { inRotation, summarize, summaryLine } from './stats';

interface Options {
  rounds: number;
  sizes: number[];
  dir: string;
  keep: boolean;
}

const USAGE =
  'usage: npm run bench:nccl-log [-- --rounds N (default 3)] [--sizes MiB,… (default 128,1024)] [--dir DIR (default the temp dir)] [--keep]';

/** null: --help was asked for. */
function parseOptions(argv: readonly string[]): Options | null {
  const o: Options = { rounds: 3, sizes: [128, 1024], dir: os.tmpdir(), keep: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--help' || flag === '-h') return null;
    if (flag === '--keep') {
      o.keep = true;
      continue;
    }
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === '--rounds') o.rounds = whole(flag, value);
    else if (flag === '--sizes') o.sizes = [...new Set(value.split(',').map((v) => whole(flag, v)))].sort((a, b) => a - b);
    else if (flag === '--dir') o.dir = value;
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
    i++;
  }
  return o;
}

function whole(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs whole numbers from 1, got ${JSON.stringify(value)}`);
  return n;
}

const MiB = 1024 * 1024;

/** gdr-doctor read the same job grep sees: all hosts and ranks, every GDRDMA line. */
function checkSameWork(log: BigLog, run: Run, grep: Run): string {
  const j = JSON.parse(run.stdout) as { verdict: string; netConnections: { total: number; gdrdma: number }; hosts: { ranks: number[] }[] };
  const ranks = j.hosts.reduce((a, h) => a + h.ranks.length, 0);
  const grepped = Number(grep.stdout.trim());
  const problems = [
    j.hosts.length !== HOSTS && `${j.hosts.length} hosts, not ${HOSTS}`,
    ranks !== HOSTS * GPUS_PER_HOST && `${ranks} ranks, not ${HOSTS * GPUS_PER_HOST}`,
    j.netConnections.gdrdma !== grepped && `${j.netConnections.gdrdma} GDRDMA connections, grep counts ${grepped} lines`,
    grepped !== log.gdrdmaLines && `grep counts ${grepped}, the builder wrote ${log.gdrdmaLines}`,
  ].filter((p): p is string => typeof p === 'string');
  if (problems.length > 0) throw new Error(`not the same work: ${problems.join('; ')}`);
  return `same work: ${j.hosts.length} hosts, ${ranks} ranks, ${grepped} GDRDMA connection lines found by both; verdict ${j.verdict}`;
}

function mbPerS(bytes: number, ms: number): string {
  return `${(bytes / MiB / (ms / 1000)).toFixed(1)} MiB/s`;
}

async function benchSize(mb: number, o: Options): Promise<void> {
  const log = buildBigLog(path.join(o.dir, `gdr-doctor-nccl-log-bench-${mb}MiB.log`), mb);
  console.log(`\n== ${(log.bytes / MiB).toFixed(0)} MiB (${log.passes} passes of ${HOSTS} hosts × ${GPUS_PER_HOST} GPUs): ${log.file}`);
  const warm = { gdr: gdrDoctor(log.file), grep: grepCount(log.file) };
  console.log(`  ${checkSameWork(log, warm.gdr, warm.grep)}`);
  const ms: Record<'gdr' | 'grep' | 'wc' | 'readline', number[]> = { gdr: [], grep: [], wc: [], readline: [] };
  const rss: number[] = [];
  for (let round = 0; round < o.rounds; round++) {
    await inRotation(round, [
      async () => {
        const r = gdrDoctor(log.file);
        ms.gdr.push(r.ms);
        rss.push(r.rssKiB ?? 0);
      },
      async () => void ms.grep.push(grepCount(log.file).ms),
      async () => void ms.wc.push(wcLines(log.file).ms),
      async () => void ms.readline.push(nodeReadline(log.file).ms),
    ]);
  }
  const s = { gdr: summarize(ms.gdr), grep: summarize(ms.grep), wc: summarize(ms.wc), readline: summarize(ms.readline) };
  console.log(summaryLine('gdr-doctor nccl-log FILE --json', s.gdr), `  ${mbPerS(log.bytes, s.gdr.median)}`);
  console.log(summaryLine('grep -c GDRDMA FILE', s.grep), `  ${mbPerS(log.bytes, s.grep.median)}`);
  console.log(summaryLine('wc -l FILE', s.wc), `  ${mbPerS(log.bytes, s.wc.median)}`);
  console.log(summaryLine('node readline, count GDRDMA lines', s.readline), `  ${mbPerS(log.bytes, s.readline.median)}`);
  const peak = summarize(rss);
  console.log(`  gdr-doctor peak RSS: median ${(peak.median / 1024).toFixed(1)} MiB, max ${(peak.max / 1024).toFixed(1)} MiB`);
  console.log(
    `  ratio (medians, gdr-doctor / other): grep ${(s.gdr.median / s.grep.median).toFixed(1)}, wc ${(s.gdr.median / s.wc.median).toFixed(1)}, ` +
      `node readline ${(s.gdr.median / s.readline.median).toFixed(2)}`,
  );
  if (!o.keep) fs.rmSync(log.file, { force: true });
}

function machineLines(): string[] {
  const cpus = os.cpus();
  return [
    `machine: ${cpus.length}× ${cpus[0]?.model ?? '?'}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB` +
      `, Node ${process.version}, ${os.platform()} ${os.release()}`,
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ];
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  if (o === null) {
    console.log(USAGE);
    return;
  }
  if (!cliBuilt()) throw new Error('dist/cli.js is missing: run "npm run build" (npm run bench:nccl-log does)');
  console.log('gdr-doctor nccl-log bench: a 1,024-rank NCCL 2.27.5 job built from real fixture lines (bench/ncclLogBig.ts)');
  for (const line of machineLines()) console.log(line);
  for (const mb of o.sizes) await benchSize(mb, o);
  console.log(
    `\nload average at end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
});
