// Caps that add up: one host's probe stream has a budget of its own (HOST_STREAM_BUDGET), whatever each
// command's cap allows together, and the streams a run holds at once share one budget (a StreamBudget):
// a direct probe and a relayed node alike, each time said in the report's notes. The loud hosts are
// generated here: fake commands printing megabytes each.
import * as assert from 'node:assert/strict';
import { RelayDemux } from '../../../src/core/transport/relay/demux';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { encodeDone, encodeHeader, encodeSection } from '../../../src/core/probe/frames';
import { localRunner } from '../../../src/core/transport/local';
import { HOST_STREAM_BUDGET } from '../../../src/core/probe/outputLimits';
import { runProbe } from '../../../src/core/probe/runProbe';
import { StreamBudget } from '../../../src/core/probe/streamBudget';
import { ProbeStdout } from '../../../src/core/probe/streamCaps';
import { H100_STUBS, makeFakeHost } from './fakeHost';

const B = 'gdr-doctor-fixedtestboundary';

/** A probe stream whose one command printed `bytes` bytes. */
function loudStream(bytes: number): Buffer {
  const stdout = Buffer.alloc(bytes, 0x78);
  return Buffer.concat([
    Buffer.from('\n'),
    encodeHeader(B, { clock: 'cs', timeout: 'yes' }),
    encodeSection(B, { id: 'topo', exitCode: 0, durationMs: 1, limitS: 5, stdout, stderr: Buffer.alloc(0) }),
    encodeDone(B),
  ]);
}

describe('probe output budgets: per host and per run', function () {
  this.timeout(120_000);

  it("a host whose commands each stay under their own cap but together pass the host's budget is cut, and the report says so", async () => {
    // Every faked command prints 6 MB (under the 8 MiB per-command cap): far more than 32 MiB together.
    const loud = 'head -c 6000000 /dev/zero | tr "\\0" x';
    const stubs = Object.fromEntries(Object.keys(H100_STUBS).map((name) => [name, loud]));
    const host = makeFakeHost(stubs);
    try {
      const report = await runProbe(localRunner({ env: host.env }), { host: 'loud' });
      assert.equal(report.outputCut?.stream?.by, 'host');
      assert.equal(report.outputCut?.stream?.limitBytes, HOST_STREAM_BUDGET);
      assert.ok(
        report.notes.some((n) => /^the host's probe output passed its budget of 32 MiB: \d+ more bytes were cut there/.test(n)),
        report.notes.join('\n'),
      );
      const kept = report.commands.reduce((n, c) => n + c.stdout.length + c.stderr.length, 0);
      assert.ok(kept <= HOST_STREAM_BUDGET, String(kept));
      assert.equal(report.commands.length, PROBE_COMMANDS.length);
    } finally {
      host.cleanup();
    }
  });

  it("streams held at once share the run's budget: the one asking past it is cut, and the budget comes back once parsed", async () => {
    const budget = new StreamBudget(3 * 1024 * 1024);
    const first = new ProbeStdout(B, HOST_STREAM_BUDGET, budget);
    const second = new ProbeStdout(B, HOST_STREAM_BUDGET, budget);
    assert.equal(first.write(loudStream(2 * 1024 * 1024)), true);
    assert.equal(second.write(loudStream(2 * 1024 * 1024)), false, 'the second passes what is left');
    const cut = second.result();
    assert.deepEqual([cut.streamCut?.by, cut.streamCut?.limitBytes], ['run', 3 * 1024 * 1024]);
    const report = await runProbe(
      async () => ({
        stdout: cut.stdout,
        stderr: Buffer.alloc(0),
        exitCode: null,
        connectionLost: false,
        timedOut: false,
        streamCut: cut.streamCut,
      }),
      { host: 'second', boundary: B },
    );
    assert.ok(
      report.notes.some((n) => n.startsWith('the probe outputs held at once over the whole run passed their budget of 3 MiB')),
      report.notes.join('\n'),
    );
    first.result();
    assert.equal(budget.inUse, 0, 'both gave their share back');
  });

  it("a relay's nodes share the run's budget too: the node asking past it is cut and says so; the budget comes back", () => {
    const budget = new StreamBudget(100 * 1024);
    const tag = 'gdrr-0123456789abcdef';
    const d = new RelayDemux('pdsh', tag, ['n1', 'n2'], undefined, undefined, budget);
    const line = 'QUJD'.repeat(19); // 57 bytes decoded
    const lines = (node: string, n: number) => `${node}: ${tag} B ${node}\n${`${node}: ${line}\n`.repeat(n)}`;
    d.pushStdout(Buffer.from(lines('n1', 1000) + lines('n2', 1000)));
    assert.equal(d.nodes.get('n1')?.data.cut, undefined);
    assert.deepEqual([d.nodes.get('n2')?.data.cut?.by, d.nodes.get('n2')?.data.cut?.limitBytes], ['run', 100 * 1024]);
    assert.ok(budget.inUse > 0);
    d.dropStreams();
    assert.equal(budget.inUse, 0);
  });
});
