// `npm run bench:fleet`: gdr-doctor on many hosts at once, on the lab (test/lab: own-address hosts,
// a login node, real Slurm), side by side in one run. See bench/README.md.
//   1. direct fan-out (the CLI, ssh2)  vs  `pdsh -R ssh` doing the same commands, same hosts, same fan-out
//   2. through the login node with Slurm (srun)  vs  direct fan-out to the same nodes
//   3. time and peak memory of the CLI's fan-out at growing numbers of hosts
// Sides alternate per round; medians decide. A MISS is a result: the exit status is 0 unless
// something broke (no root, a host not probed to the end, pdsh missing).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FleetHostResult } from '../src/core/fleet/types';
import type { CommandResult } from '../src/core/probe/frames';
import { PROBE_COMMANDS } from '../src/core/probe/commands';
import { assertLabCanRun } from '../test/lab/lab';
import { checkFleetDelays, FLEET_NETWORK, FLEET_RECORDS_PATH, FleetLab, LOGIN_HOST, startFleetLab } from './fleetLab';
import { measureScale, printScale } from './fleetScale';
import { commandsCutSoFar, FleetJsonHost, gdrFanOut, gdrViaSlurm, pdshProbe, pdshSequential } from './fleetSides';
import { callsBetween, markCalls, sameCallsLine, sameOutputsLine, sameProbeOutputsLine } from './fleetWork';
import { inRotation, summarize, summaryLine, targetLine } from './stats';

interface Options {
  rounds: number;
  warmup: number;
  hosts: number;
  concurrency: number;
  sizes: number[];
  profile: string;
}

const USAGE = `usage: npm run bench:fleet [-- --rounds N (default 3)] [--warmup N (default 1)] [--hosts N (default 16, at most the largest size)]
       [--concurrency C (default 8)] [--sizes A,B,… (default 8,16,32)] [--profile NAME (default bench-healthy)]`;

function count(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > 200)
    throw new Error(`${flag} needs a whole number from ${min} to 200, got ${JSON.stringify(value)}`);
  return n;
}

/** null: --help was asked for. */
function parseOptions(argv: readonly string[]): Options | null {
  const o: Options = { rounds: 3, warmup: 1, hosts: 0, concurrency: 8, sizes: [8, 16, 32], profile: 'bench-healthy' };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--help' || flag === '-h') return null;
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === '--profile') o.profile = value;
    // One host is not a fan-out: the CLI diagnoses it alone (another code path, another JSON).
    else if (flag === '--sizes') o.sizes = [...new Set(value.split(',').map((v) => count(flag, v, 2)))].sort((a, b) => a - b);
    else if (flag === '--hosts') o.hosts = count(flag, value, 2);
    else if (flag === '--rounds' || flag === '--concurrency') o[flag.slice(2) as 'rounds'] = count(flag, value, 1);
    else if (flag === '--warmup') o.warmup = count(flag, value, 0);
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  const largest = o.sizes[o.sizes.length - 1];
  o.hosts = o.hosts || Math.min(16, largest);
  if (o.hosts > largest) throw new Error(`--hosts ${o.hosts} is more than the largest of --sizes (${largest}): the lab holds that many`);
  return o;
}

const reportsOf = (hosts: readonly FleetJsonHost[]) => new Map(hosts.map((h) => [h.host, h.report?.commands ?? []]));
const relayReportsOf = (results: readonly FleetHostResult[]) =>
  new Map<string, readonly CommandResult[]>(results.map((r) => [r.host, r.report?.commands ?? []]));
const findingIds = (ids: readonly { id: string }[] | undefined) => (ids ?? []).map((f) => f.id).join(',');

/** Part 1's unmeasured first run of each side, which also checks that they did the same work. */
async function fanOutWarmUp(f: FleetLab, hosts: readonly string[], c: number): Promise<void> {
  const { lab } = f;
  const cfg = lab.sshConfigPath;
  const m0 = markCalls(lab, hosts);
  const gdr = await gdrFanOut(hosts, c, cfg);
  const m1 = markCalls(lab, hosts);
  const seq = await pdshSequential(hosts, c, cfg);
  const m2 = markCalls(lab, hosts);
  const probe = await pdshProbe(hosts, c, cfg);
  const m3 = markCalls(lab, hosts);
  const gdrCalls = callsBetween(lab, m0, m1);
  console.log(sameCallsLine('gdr-doctor vs pdsh, commands in a row', gdrCalls, callsBetween(lab, m1, m2)));
  console.log(sameOutputsLine('gdr-doctor vs pdsh, commands in a row', reportsOf(gdr.value.hosts), seq.value));
  console.log(sameCallsLine('gdr-doctor vs pdsh carrying the probe', gdrCalls, callsBetween(lab, m2, m3)));
  console.log(sameProbeOutputsLine('gdr-doctor vs pdsh carrying the probe', reportsOf(gdr.value.hosts), relayReportsOf(probe.value)));
}

async function fanOutPart(f: FleetLab, o: Options): Promise<void> {
  const hosts = f.nodes.slice(0, o.hosts);
  const cfg = f.lab.sshConfigPath;
  const c = o.concurrency;
  console.log(
    `\n== 1. direct fan-out vs pdsh -R ssh: ${hosts.length} hosts, fan-out ${c} on both sides, ${o.rounds} rounds after ${o.warmup} warm-up, order rotated`,
  );
  for (let w = 0; w < o.warmup; w++) await fanOutWarmUp(f, hosts, c);
  const s = { gdr: [] as number[], seq: [] as number[], probe: [] as number[], rss: [] as number[] };
  for (let i = 0; i < o.rounds; i++) {
    await inRotation(i, [
      async () => {
        const r = await gdrFanOut(hosts, c, cfg);
        s.gdr.push(r.ms);
        s.rss.push(r.value.maxRssKiB);
      },
      async () => void s.seq.push((await pdshSequential(hosts, c, cfg)).ms),
      async () => void s.probe.push((await pdshProbe(hosts, c, cfg)).ms),
    ]);
  }
  const [gdr, seq, probe] = [s.gdr, s.seq, s.probe].map(summarize);
  console.log(summaryLine(`gdr-doctor diagnose <hosts> -f ${c} (CLI)`, gdr));
  console.log(summaryLine(`pdsh -f ${c}: '<commands, in a row>'`, seq));
  console.log(summaryLine(`pdsh -f ${c}: gdr-doctor's probe script`, probe));
  console.log(
    `  peak RSS of the gdr-doctor CLI: median ${(summarize(s.rss).median / 1024).toFixed(1)} MiB, max ${(summarize(s.rss).max / 1024).toFixed(1)} MiB`,
  );
  console.log('targets (issue 6 §4; medians, gdr-doctor / pdsh):');
  console.log(
    targetLine({
      label: 'fan-out no slower than pdsh doing the same commands',
      ratio: gdr.median / seq.median,
      limit: 1,
      strict: false,
      limitText: '<= 1.00',
    }),
  );
  console.log(
    targetLine({
      label: 'fan-out no slower than pdsh carrying the same probe script',
      ratio: gdr.median / probe.median,
      limit: 1,
      strict: false,
      limitText: '<= 1.00',
    }),
  );
}

/** Part 2's unmeasured first runs: the same calls on every node, and the same findings. */
async function slurmWarmUp(f: FleetLab, nodes: readonly string[]): Promise<void> {
  const { lab } = f;
  const m0 = markCalls(lab, nodes);
  const slurm = await gdrViaSlurm(LOGIN_HOST, nodes, lab.sshConfigPath);
  const m1 = markCalls(lab, nodes);
  const direct = await gdrFanOut(nodes, nodes.length, lab.sshConfigPath);
  const m2 = markCalls(lab, nodes);
  console.log(sameCallsLine('via Slurm vs direct', callsBetween(lab, m0, m1), callsBetween(lab, m1, m2)));
  const directFindings = new Map(direct.value.hosts.map((h) => [h.host, findingIds(h.report?.findings)]));
  const differ = slurm.value.hosts.filter((h) => findingIds(h.report?.findings) !== directFindings.get(h.host));
  const first = differ[0]
    ? ` (${differ[0].host}: via Slurm [${findingIds(differ[0].report?.findings)}], direct [${directFindings.get(differ[0].host)}])`
    : '';
  console.log(
    `           findings: ${differ.length ? `DIFFER on ${differ.map((h) => h.host).join(',')}${first}` : `identical on all ${nodes.length} nodes`}`,
  );
}

async function slurmPart(f: FleetLab, o: Options): Promise<void> {
  const nodes = f.nodes.slice(0, o.hosts);
  console.log(
    `\n== 2. through the login node with Slurm vs direct fan-out: the same ${nodes.length} nodes, every node at once on both sides`,
  );
  if (f.slurmMissing) {
    console.log(`  SKIPPED: ${f.slurmMissing}`);
    return;
  }
  for (let w = 0; w < o.warmup; w++) await slurmWarmUp(f, nodes);
  const s = { slurm: [] as number[], direct: [] as number[] };
  for (let i = 0; i < o.rounds; i++) {
    await inRotation(i, [
      async () => void s.slurm.push((await gdrViaSlurm(LOGIN_HOST, nodes, f.lab.sshConfigPath)).ms),
      async () => void s.direct.push((await gdrFanOut(nodes, nodes.length, f.lab.sshConfigPath)).ms),
    ]);
  }
  const [slurm, direct] = [s.slurm, s.direct].map(summarize);
  console.log(summaryLine(`gdr-doctor --via ${LOGIN_HOST} --with slurm`, slurm));
  console.log(summaryLine(`gdr-doctor diagnose <nodes> -f ${nodes.length}`, direct));
  console.log(`  ratio via Slurm / direct (medians): ${(slurm.median / direct.median).toFixed(2)} (for reading; the issue sets no target)`);
}

async function scalePart(f: FleetLab, o: Options): Promise<void> {
  console.log(
    `\n== 3. direct fan-out at ${o.sizes.join(', ')} hosts (fan-out = hosts: every connection open at once), ${o.rounds} rounds, sizes rotated`,
  );
  printScale(await measureScale(o.sizes, f.nodes, o.rounds, f.lab.sshConfigPath));
}

function assertTools(): void {
  if (!fs.existsSync(path.join(__dirname, '../dist/cli.js')))
    throw new Error('dist/cli.js is missing: npm run build first (npm run bench:fleet does)');
  if (!['/usr/bin/pdsh', '/usr/local/bin/pdsh'].some((p) => fs.existsSync(p)))
    throw new Error('pdsh is missing: run test/lab/install.sh (as root) first');
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<number> {
  const o = parseOptions(process.argv.slice(2));
  if (o === null) {
    console.log(USAGE);
    return 0;
  }
  assertLabCanRun();
  assertTools();
  const t0 = performance.now();
  const f = await startFleetLab(o.profile, o.sizes[o.sizes.length - 1]);
  const onSignal = () => void f.stop().finally(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    console.log(
      `gdr-doctor fleet bench: ${f.nodes.length} compute hosts (profile ${o.profile}) + login node ${LOGIN_HOST}${f.slurmMissing ? '' : ' with Slurm'}` +
        `, 10.250.${FLEET_NETWORK.subnet}.0/24 on ${FLEET_NETWORK.bridge}` +
        `, up in ${((performance.now() - t0) / 1000).toFixed(1)} s; records ${FLEET_RECORDS_PATH}`,
    );
    console.log(
      `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
        `load average ${load()}; node ${process.version}; probe: ${PROBE_COMMANDS.length} commands`,
    );
    const check = await checkFleetDelays(f);
    console.log(
      `delays: ${Object.entries(f.profile.delays)
        .map(([c, ms]) => `${c} ${ms} ms`)
        .join(', ')} — ${f.profile.delaysSource}`,
    );
    check.lines.forEach((l) => console.log(`  ${l}`));
    console.log(
      check.inEffect ? '  => delays IN EFFECT' : '  => delays NOT in effect: the numbers below are without realistic command delays',
    );
    await fanOutPart(f, o);
    await slurmPart(f, o);
    await scalePart(f, o);
  } finally {
    await f.stop();
  }
  const cut = commandsCutSoFar();
  console.log(
    cut === 0
      ? '\nevery probe command ran to its end on every host (none stopped by its time limit)'
      : `\nWARNING: ${cut} probe commands were stopped by their time limit over the run: ` +
          `the machine was too loaded, those probes did less work than pdsh; re-run on a quieter machine`,
  );
  console.log(
    `load average at the end ${load()} (the lab shares this machine's CPUs: compare it with the start); ` +
      `whole run ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`bench:fleet: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
