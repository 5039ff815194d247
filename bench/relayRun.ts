// One measured run of the relay bench, in a process of its own so its peak memory is its own:
//   tsx --expose-gc bench/relayRun.ts pdsh|stream|relay NODES FANOUT
// pdsh:   the pdsh run of relayReplay.ts, its output read by this process and dropped (pdsh alone);
// stream: the same output through the relay's demux (relay/demux.ts): every node's stream split,
//         decoded and handed on as it ends, then dropped (the streaming without the diagnosis);
// relay:  gdr-doctor's relayDiagnose over the replayed fleet (demux, runProbe and diagnose() per
//         node), then a check that every node's report equals a direct parse of the stream it replayed.
// Prints one JSON line: { side, nodes, ms, maxRssKiB, heapMiB (after a GC, results still held), … }.
import { performance } from 'node:perf_hooks';
import { relayDiagnose, RelaySpill } from '../src/core/fleet/relay';
import { RelayDemux } from '../src/core/transport/relay/demux';
import { nodeKeys } from '../src/core/transport/relay/loginScript';
import { expandHostList } from '../src/core/parsers/hostlist';
import type { FleetHostResult } from '../src/core/fleet/types';
import { PROBE_COMMANDS } from '../src/core/probe/commands';
import { ProbeReport, runProbe } from '../src/core/probe/runProbe';
import { newBoundary } from '../src/core/probe/script';
import { nodeList, replayedStream, replayFleet, replayLogin, replayLoginScript, runReplay } from './relayReplay';

const TIMEOUT_MS = 30 * 60_000;

const outputsOf = (report: ProbeReport) => JSON.stringify(report.commands.map((c) => [c.id, c.state, c.exitCode, c.stdout, c.stderr]));

/** Nodes whose report (read back from the spill folder) differs from a direct parse of the replayed stream (or that have none). */
async function mismatches(results: readonly FleetHostResult[], nodes: number): Promise<string[]> {
  const boundary = newBoundary();
  const stream = replayedStream(boundary);
  const direct = await runProbe(
    async () => ({ stdout: stream, stderr: Buffer.alloc(0), exitCode: 0, connectionLost: false, timedOut: false }),
    { host: 'direct', boundary },
  );
  const expected = outputsOf(direct);
  const bad: string[] = [];
  for (const r of results) {
    const report = r.fullReport ? await r.fullReport() : r.report;
    if (!report || !report.finished || outputsOf(report) !== expected) bad.push(`${r.host}: ${r.status} ${r.error?.message ?? ''}`.trim());
  }
  if (results.length !== nodes) bad.push(`${results.length} results for ${nodes} nodes`);
  return bad;
}

/** The relay's demux alone over the pdsh run: every node must end with the whole replayed stream. */
async function streamOnly(fleet: ReturnType<typeof replayFleet>): Promise<void> {
  const tag = 'gdrr-0000000000000000';
  const boundary = newBoundary();
  const expected = replayedStream(boundary).length;
  let whole = 0;
  const keys = nodeKeys(expandHostList(nodeList(fleet.nodes)));
  const demux = new RelayDemux('pdsh', tag, [], (node) => void (node.data.take().length === expected && whole++), keys);
  const sink = (push: (c: Buffer) => void) => ({ write: (c: Buffer) => (push(c), true) });
  await runReplay(
    replayLoginScript(fleet, tag, boundary, keys),
    TIMEOUT_MS,
    sink((c) => demux.pushStdout(c)),
    sink((c) => demux.pushStderr(c)),
  );
  demux.end();
  if (whole !== fleet.nodes) throw new Error(`${whole} of ${fleet.nodes} nodes came through whole`);
}

async function main(): Promise<void> {
  const [side, nodesArg, fanoutArg] = process.argv.slice(2);
  const nodes = Number(nodesArg);
  const fleet = replayFleet(nodes, Number(fanoutArg));
  let spill: RelaySpill | undefined;
  try {
    const t0 = performance.now();
    let results: FleetHostResult[] = [];
    if (side === 'relay') {
      // As the CLI runs a relay: each node's outputs kept on disk once diagnosed (relay/spill.ts).
      spill = await RelaySpill.create();
      results = await relayDiagnose(replayLogin(fleet), {
        spill,
        tool: 'pdsh',
        loginHost: 'bench-login',
        nodes: nodeList(nodes),
        concurrency: fleet.fanout,
        deadlineMs: TIMEOUT_MS,
        commands: PROBE_COMMANDS,
      });
    } else if (side === 'stream') {
      await streamOnly(fleet);
    } else {
      let bytes = 0;
      const drop = { write: (chunk: Buffer) => ((bytes += chunk.length), true) };
      const keys = nodeKeys(expandHostList(nodeList(nodes)));
      const run = await runReplay(replayLoginScript(fleet, 'gdrr-0000000000000000', newBoundary(), keys), TIMEOUT_MS, drop, drop);
      if (run.exitCode !== 0 || bytes === 0) throw new Error(`pdsh failed (exit ${run.exitCode}): ${run.stderr.toString()}`);
    }
    const ms = performance.now() - t0;
    (globalThis as { gc?: () => void }).gc?.();
    const heapMiB = process.memoryUsage().heapUsed / 1024 / 1024;
    const bad = side === 'relay' ? await mismatches(results, nodes) : [];
    console.log(
      JSON.stringify({
        side,
        nodes,
        ms,
        maxRssKiB: process.resourceUsage().maxRSS,
        heapMiB,
        checked: results.length,
        mismatches: bad.slice(0, 5),
        mismatchCount: bad.length,
      }),
    );
  } finally {
    fleet.cleanup();
    await spill?.remove();
  }
}

main().catch((e: unknown) => {
  console.error(`relay bench run: ${e instanceof Error ? e.stack : String(e)}`);
  process.exit(1);
});
