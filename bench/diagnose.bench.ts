// `npm run bench`: gdr-doctor's diagnose against OpenSSH doing the same commands, on a simulated
// GPU host (test/lab), alternating the two sides in one run. See bench/README.md.
//   (a) fresh diagnose (resolve + connect + one exec + parse)  vs  `ssh host '<commands in a row>'`,
//                                                                  and `ssh host '<commands at once>'`
//   (b) a diagnose on the connection (a) left in the pool       vs  a fresh `ssh host '…'`
//   (c) the host's CPU for one probe vs for the same commands in a row (hostCpu.ts, a host without delays)
// Prints medians, min/max, ratios and the targets (PASS/MISS), then the extension's package
// sizes and its activation time in a real VS Code (bench/extension.ts). A MISS is a result, not a
// failure: the exit status is 0 unless something broke (no root, a host down, a run cut short).
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { PROBE_COMMANDS } from '../src/core/probe/commands';
import { ProbeReport } from '../src/core/probe/runProbe';
import { SshConnection } from '../src/core/ssh/connect';
import { ConnectionPool } from '../src/core/ssh/pool';
import { assertLabCanRun, LabHost } from '../test/lab/lab';
import { BENCH_CPU_HOST, BENCH_HOST, BENCH_RECORDS_PATH, BenchLab, checkDelays, DelayCheck, startBenchLab } from './benchLab';
import { CpuSamples, measureHostCpu } from './hostCpu';
import { compareCalls, compareOutputs, differText, identicalOf } from './sameWork';
import { printExtensionNumbers } from './extension';
import {
  benchPool,
  Diagnosed,
  gdrDiagnose,
  NOOP_COMMANDS,
  openSsh,
  OPENSSH_COMMAND,
  OPENSSH_PARALLEL_COMMAND,
  OpenSshResult,
  Timed,
} from './sides';
import { inRotation, summarize, summaryLine, targetLine } from './stats';

interface Options {
  rounds: number;
  warmup: number;
  profile: string;
  activationRuns: number;
}

const USAGE =
  'usage: npm run bench:host [-- --rounds N (default 10)] [--warmup N (default 1)] [--profile NAME (default bench-healthy: nvidia-smi delayed as measured in public reports)] [--activation-runs N (default 3; 0: sizes only)]';

/** null: --help was asked for. */
function parseOptions(argv: readonly string[]): Options | null {
  const o: Options = { rounds: 10, warmup: 1, profile: 'bench-healthy', activationRuns: 3 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--help' || flag === '-h') return null;
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === '--profile') o.profile = value;
    else if (flag === '--rounds' || flag === '--warmup') o[flag === '--rounds' ? 'rounds' : 'warmup'] = count(flag, value);
    else if (flag === '--activation-runs') o.activationRuns = count(flag, value);
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
    i++;
  }
  if (o.rounds < 1) throw new Error('--rounds must be at least 1');
  return o;
}

function count(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a whole number, got ${JSON.stringify(value)}`);
  return n;
}

interface Samples {
  gdrFresh: number[];
  sshA: number[];
  /** (a) against the hand-written parallel script. */
  sshPar: number[];
  gdrAgain: number[];
  sshB: number[];
  noop: number[];
}

/** One round: pair (a) on an empty pool, then pair (b) on the connection (a) left in it. */
async function round(i: number, sshConfigPath: string, s: Samples): Promise<void> {
  const pool = benchPool(sshConfigPath);
  try {
    let fresh: Timed<Diagnosed> | undefined;
    await inRotation(i, [
      async () => void (fresh = await gdrDiagnose(pool, BENCH_HOST)),
      async () => void s.sshA.push((await openSsh(BENCH_HOST, sshConfigPath)).ms),
      async () => void s.sshPar.push((await openSsh(BENCH_HOST, sshConfigPath, OPENSSH_PARALLEL_COMMAND)).ms),
    ]);
    s.gdrFresh.push(fresh!.ms);
    await inRotation(i + 1, [
      async () => void s.gdrAgain.push(await reDiagnose(pool, fresh!.value.conn)),
      async () => void s.sshB.push((await openSsh(BENCH_HOST, sshConfigPath)).ms),
    ]);
  } finally {
    pool.closeAll();
  }
}

/** The re-diagnose; a pool that opened a new connection would time a fresh one instead: refused. */
async function reDiagnose(pool: ConnectionPool, first: SshConnection): Promise<number> {
  const r = await gdrDiagnose(pool, BENCH_HOST);
  if (r.value.conn !== first) throw new Error('the pool opened a new connection for the re-diagnose: the first one was lost');
  return r.ms;
}

/** Unmeasured first runs (ssh -G, module loading, sshd's first fork); also checks both sides' work. */
async function warmUp(bench: BenchLab, n: number): Promise<void> {
  const host = bench.lab.host(BENCH_HOST);
  const pool = benchPool(bench.lab.sshConfigPath);
  try {
    const before = host.calls().length;
    const fresh = await gdrDiagnose(pool, BENCH_HOST);
    const mid = host.calls().length;
    const ssh = await openSsh(BENCH_HOST, bench.lab.sshConfigPath);
    printSameWork(host, before, mid, fresh.value.report, ssh.value);
    const parallel = compareOutputs(
      fresh.value.report.commands,
      (await openSsh(BENCH_HOST, bench.lab.sshConfigPath, OPENSSH_PARALLEL_COMMAND)).value.stdout,
    );
    console.log(`           parallel script: outputs of ${identicalOf(parallel)} commands identical${differText(parallel.differing)}`);
    printDelays(bench, await pool.use(BENCH_HOST, (conn) => checkDelays(conn.client, bench.delays)));
  } finally {
    pool.closeAll();
  }
  const scratch: Samples = { gdrFresh: [], sshA: [], sshPar: [], gdrAgain: [], sshB: [], noop: [] };
  for (let i = 0; i < n; i++) await round(i, bench.lab.sshConfigPath, scratch);
}

function printSameWork(host: LabHost, before: number, mid: number, report: ProbeReport, ssh: OpenSshResult): void {
  const calls = host.calls();
  const diff = compareCalls(calls.slice(before, mid), calls.slice(mid));
  const out = compareOutputs(report.commands, ssh.stdout);
  const sameWork = diff.length ? `; DIFFER: ${diff.join('; ')}` : ', identical';
  console.log(`same work: ${mid - before} fake-command calls by gdr-doctor, ${calls.length - mid} by OpenSSH${sameWork}`);
  console.log(
    `           outputs of ${identicalOf(out)} commands (those without stderr) identical on both sides${differText(out.differing)}`,
  );
  const times = report.commands.map((c) => ({ id: c.id, ms: c.durationMs ?? 0 }));
  const slowest = times.reduce((a, b) => (b.ms > a.ms ? b : a));
  const sum = times.reduce((t, c) => t + c.ms, 0);
  console.log(
    `host-side command times inside the probe (all at once, so each slowed by the others): sum ${sum} ms, slowest ${slowest.ms} ms (${slowest.id})`,
  );
}

function printDelays(bench: BenchLab, check: DelayCheck): void {
  const wanted = Object.entries(bench.delays)
    .map(([c, ms]) => `${c} ${ms} ms`)
    .join(', ');
  console.log(`delays: ${wanted} — ${bench.delaysSource}`);
  check.lines.forEach((l) => console.log(`  ${l}`));
  console.log(
    check.inEffect
      ? '  => delays IN EFFECT'
      : '  => delays NOT in effect: this lab has no `delays` option yet, so the numbers below are WITHOUT realistic command delays (re-run once test/lab supports it; the bench picks it up by itself)',
  );
}

/** The probe script's own cost on an open connection (no-op commands): where a MISS comes from. */
async function noopRuns(n: number, sshConfigPath: string): Promise<number[]> {
  const pool = benchPool(sshConfigPath);
  try {
    await gdrDiagnose(pool, BENCH_HOST, NOOP_COMMANDS); // opens the connection, not counted
    const ms: number[] = [];
    for (let i = 0; i < n; i++) ms.push((await gdrDiagnose(pool, BENCH_HOST, NOOP_COMMANDS)).ms);
    return ms;
  } finally {
    pool.closeAll();
  }
}

function printResults(s: Samples, cpu: CpuSamples): void {
  const [fresh, sshA, sshPar, again, sshB] = [s.gdrFresh, s.sshA, s.sshPar, s.gdrAgain, s.sshB].map(summarize);
  console.log('\n(a) fresh diagnose vs OpenSSH doing the same commands');
  console.log(summaryLine('gdr-doctor: resolve + connect + probe + parse', fresh));
  console.log(summaryLine("ssh -F <cfg> host '<commands, in a row>'", sshA));
  console.log(summaryLine("ssh -F <cfg> host '<commands, all at once>'", sshPar));
  console.log('(b) diagnose on an open connection vs a fresh OpenSSH run');
  console.log(summaryLine('gdr-doctor: probe + parse, pooled connection', again));
  console.log(summaryLine("ssh -F <cfg> host '<commands, in a row>'", sshB));
  console.log('for reading, not a target: the probe script itself, every command replaced by `true`, on an open connection');
  console.log(summaryLine('gdr-doctor: no-op probe + parse', summarize(s.noop)));
  const [probeCpu, plainCpu] = [summarize(cpu.probe), summarize(cpu.plain)];
  const sum = (v: readonly number[]) => v.reduce((a, b) => a + b, 0);
  console.log(
    `(c) CPU (user + sys) on the host for one probe, host ${BENCH_CPU_HOST} (no delays), \`times\` of the script's shell (10 ms ticks)`,
  );
  console.log(summaryLine('gdr-doctor probe script', probeCpu));
  console.log(summaryLine('the same commands in a row (sh -s)', plainCpu));
  console.log(summaryLine('the same commands all at once (sh -s)', summarize(cpu.parallel)));
  console.log(
    `  for reading: the probe / the hand-written parallel script ${(sum(cpu.probe) / sum(cpu.parallel)).toFixed(2)}; ` +
      `that script / the commands in a row ${(sum(cpu.parallel) / sum(cpu.plain)).toFixed(2)} (running at once costs CPU by itself on a busy machine)`,
  );
  console.log('\ntargets (medians, gdr-doctor / OpenSSH; CPU: totals over all rounds, finer than one 10 ms tick):');
  console.log(
    targetLine({
      label: 'fresh diagnose no slower than OpenSSH in a row',
      ratio: fresh.median / sshA.median,
      limit: 1,
      strict: false,
      limitText: '<= 1.00',
    }),
  );
  console.log(
    targetLine({
      label: 'fresh diagnose vs OpenSSH running them all at once',
      ratio: fresh.median / sshPar.median,
      limit: 1.1,
      strict: false,
      limitText: '<= 1.10',
    }),
  );
  console.log(
    targetLine({
      label: 're-diagnose on an open connection under a third of OpenSSH',
      ratio: again.median / sshB.median,
      limit: 1 / 3,
      strict: true,
      limitText: '< 0.33',
    }),
  );
  console.log(
    targetLine({
      label: "the probe's CPU on the host vs the plain commands",
      ratio: sum(cpu.probe) / sum(cpu.plain),
      limit: 1.2,
      strict: false,
      limitText: '<= 1.20',
    }),
  );
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts === null) {
    console.log(USAGE);
    return 0;
  }
  assertLabCanRun();
  const t0 = performance.now();
  const bench = await startBenchLab(opts.profile);
  const onSignal = () => void bench.stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const h = bench.lab.host(BENCH_HOST);
    console.log(
      `gdr-doctor bench: host ${BENCH_HOST} (profile ${opts.profile}) at ${h.address}:${h.port}, ` +
        `up in ${(performance.now() - t0).toFixed(0)} ms; records ${BENCH_RECORDS_PATH}`,
    );
    // The lab's hosts share this machine's CPUs with the bench: the parallel probe competes for them.
    console.log(
      `machine: ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; node ${process.version}`,
    );
    console.log(
      `probe: ${PROBE_COMMANDS.length} commands; OpenSSH command line: ${OPENSSH_COMMAND.length} characters; ` +
        `${opts.rounds} rounds after ${opts.warmup} warm-up round(s), sides alternated`,
    );
    await warmUp(bench, opts.warmup);
    const s: Samples = { gdrFresh: [], sshA: [], sshPar: [], gdrAgain: [], sshB: [], noop: [] };
    for (let i = 0; i < opts.rounds; i++) await round(i, bench.lab.sshConfigPath, s);
    s.noop = await noopRuns(opts.rounds, bench.lab.sshConfigPath);
    const pool = benchPool(bench.lab.sshConfigPath);
    const cpu = await pool.use(BENCH_CPU_HOST, (conn) => measureHostCpu(conn.client, 2 * opts.rounds)).finally(() => pool.closeAll());
    printResults(s, cpu);
  } finally {
    await bench.stop();
  }
  // After the lab is gone: code-server and Chromium would otherwise compete with it for the CPUs.
  await printExtensionNumbers(opts.activationRuns);
  console.log(
    `\nload average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (the lab shares this machine's CPUs: compare it with the start)`,
  );
  console.log(
    `peak RSS of the bench process (node + tsx + gdr-doctor + lab bookkeeping): ${(process.resourceUsage().maxRSS / 1024).toFixed(1)} MiB`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
