// The framed stream, cut anywhere: complete sections kept, the cut one marked, later ones not run.
import * as assert from 'assert';
import { ProbeCommandSpec } from '../../../src/core/probe/commands';
import { encodeDone, encodeHeader, encodeSection, parseFrames } from '../../../src/core/probe/frames';
import { PREAMBLE_KEEP_BYTES } from '../../../src/core/probe/streamCaps';
import { localRunner } from '../../../src/core/transport/local';
import { RunnerOutput, runProbe } from '../../../src/core/probe/runProbe';
import { buildProbeScript } from '../../../src/core/probe/script';
import { fixture } from './fakeHost';

const B = 'gdr-doctor-framestest';
const COMMANDS: ProbeCommandSpec[] = [
  { id: 'first', command: 'echo one', timeoutS: 5 },
  { id: 'second', command: 'echo two', timeoutS: 5 },
  { id: 'third', command: 'echo three', timeoutS: 5 },
];

function stream(): Buffer {
  const section = (id: string, stdout: string) =>
    encodeSection(B, { id, exitCode: 0, durationMs: 5, limitS: 5, stdout: Buffer.from(stdout), stderr: Buffer.from('') });
  return Buffer.concat([
    encodeHeader(B, { clock: 'ns', timeout: 'yes' }),
    section('first', 'one\n'),
    section('second', fixture('ofed/mlnx-ofed-4.0-connectx3.txt')),
    section('third', 'three\n'),
    encodeDone(B),
  ]);
}

describe('parseFrames', () => {
  it('reads a whole stream', () => {
    const framed = parseFrames(stream(), B, COMMANDS);
    assert.strictEqual(framed.done, true);
    assert.deepStrictEqual(framed.header, { clock: 'ns', timeout: 'yes' });
    assert.deepStrictEqual(
      framed.results.map((r) => [r.state, r.exitCode, r.durationMs]),
      [
        ['complete', 0, 5],
        ['complete', 0, 5],
        ['complete', 0, 5],
      ],
    );
    assert.strictEqual(framed.results[1].stdout, fixture('ofed/mlnx-ofed-4.0-connectx3.txt'));
  });

  it('keeps complete sections and marks the cut one when the stream stops inside a payload', () => {
    const full = stream();
    const payload = fixture('ofed/mlnx-ofed-4.0-connectx3.txt');
    const at = full.indexOf(payload) + 5;
    const framed = parseFrames(full.subarray(0, at), B, COMMANDS);
    assert.strictEqual(framed.done, false);
    assert.deepStrictEqual(
      framed.results.map((r) => r.state),
      ['complete', 'cut-off', 'not-run'],
    );
    assert.strictEqual(framed.results[1].stdout, payload.slice(0, 5));
    assert.strictEqual(framed.results[1].complete, false);
    assert.strictEqual(framed.results[2].exitCode, null);
  });

  it('never throws and never calls a section complete before its END, wherever the stream is cut', () => {
    const full = stream();
    const endOfFirst = full.indexOf(`${B} END first\n`) + `${B} END first\n`.length;
    for (let cut = 0; cut <= full.length; cut++) {
      const framed = parseFrames(full.subarray(0, cut), B, COMMANDS);
      const completeCount = framed.results.filter((r) => r.complete).length;
      const endsSeen = (
        full
          .subarray(0, cut)
          .toString('latin1')
          .match(/ END (first|second|third)\n/g) ?? []
      ).length;
      assert.strictEqual(completeCount, endsSeen, `cut at ${cut}`);
      if (cut >= endOfFirst) assert.strictEqual(framed.results[0].stdout, 'one\n');
    }
  });

  it('skips login-shell noise before the header and keeps it as the preamble', () => {
    // The script prints a newline before its header (the header starts a line even after noise without one).
    const framed = parseFrames(Buffer.concat([Buffer.from('Welcome to node7\nlast login …\n\n'), stream()]), B, COMMANDS);
    assert.strictEqual(framed.preamble, 'Welcome to node7\nlast login …\n');
    assert.strictEqual(framed.preambleBytes, Buffer.byteLength('Welcome to node7\nlast login …\n'));
    assert.strictEqual(framed.results[2].stdout, 'three\n');
  });

  it('keeps only the start of a long preamble, and counts all of it', () => {
    const noise = Buffer.alloc(3 * PREAMBLE_KEEP_BYTES, 0x1b);
    const framed = parseFrames(Buffer.concat([noise, Buffer.from('\n'), stream()]), B, COMMANDS);
    assert.strictEqual(framed.preamble, '\x1b'.repeat(PREAMBLE_KEEP_BYTES));
    assert.strictEqual(framed.preambleBytes, noise.length);
    assert.strictEqual(framed.done, true);
  });

  it('reports every command as not run when no frame arrived', () => {
    const framed = parseFrames(Buffer.from('sh: 1: Syntax error\n'), B, COMMANDS);
    assert.strictEqual(framed.started, false);
    assert.deepStrictEqual(
      framed.results.map((r) => r.state),
      ['not-run', 'not-run', 'not-run'],
    );
  });

  it("ignores another run's boundary", () => {
    const framed = parseFrames(stream(), 'gdr-doctor-otherboundary', COMMANDS);
    assert.strictEqual(framed.started, false);
  });

  it('resynchronizes on the next section after a line that is not a frame', () => {
    const full = stream().toString('latin1').replace(`${B} END second\n`, 'garbage\n');
    const framed = parseFrames(Buffer.from(full, 'latin1'), B, COMMANDS);
    assert.deepStrictEqual(
      framed.results.map((r) => r.state),
      ['complete', 'cut-off', 'complete'],
    );
    assert.strictEqual(framed.framingErrors.length, 1);
  });
});

describe('a connection lost mid-probe', () => {
  it('is reported as such, with the sections that arrived kept and parsed', async () => {
    const commands: ProbeCommandSpec[] = [{ id: 'ofed', command: 'echo MLNX_OFED_LINUX-5.4-3.6.8:', timeoutS: 5 }];
    const { script } = buildProbeScript(commands, { boundary: B });
    const real = await localRunner()(script, { boundary: B, commands, deadlineMs: 20000, maxOutputBytes: 1000 });
    const lostAfterFirst = (): Promise<RunnerOutput> => {
      const full = Buffer.concat([
        real.stdout.subarray(0, real.stdout.indexOf(`${B} DONE`)),
        Buffer.from(`${B} BEGIN lscpu\n${B} META rc=0 ms=3 limit=10\n${B} STDOUT 400\nArchitecture:`),
      ]);
      return Promise.resolve({ stdout: full, stderr: Buffer.from(''), exitCode: null, connectionLost: true, timedOut: false });
    };
    const report = await runProbe(lostAfterFirst, {
      host: 'node7',
      commands: [...commands, { id: 'lscpu', command: 'lscpu', timeoutS: 10 }, { id: 'uname', command: 'uname -r', timeoutS: 10 }],
      boundary: B,
    });
    assert.strictEqual(report.connectionLost, true);
    assert.strictEqual(report.finished, false);
    assert.deepStrictEqual(
      report.commands.map((c) => c.state),
      ['complete', 'cut-off', 'not-run'],
    );
    assert.strictEqual(report.facts.ofed?.parsed.ok && report.facts.ofed.parsed.value.version, '5.4-3.6.8');
    // The cut lscpu is parsed for what arrived, marked partial: one key line is not a whole lscpu.
    assert.strictEqual(report.facts.lscpu?.partial, true);
    assert.strictEqual(report.facts.uname, undefined);
  });

  it('a runner that rejects gives a lost connection with every command not run', async () => {
    const report = await runProbe(() => Promise.reject(new Error('ECONNRESET')), {
      host: 'x',
      commands: [{ id: 'uname', command: 'uname -r', timeoutS: 5 }],
    });
    assert.strictEqual(report.connectionLost, true);
    assert.deepStrictEqual(report.notes, ['ECONNRESET']);
    assert.strictEqual(report.commands[0].state, 'not-run');
  });
});
