// Bounds on what a probe keeps of a host's text besides its sections: the login shell's output
// before the probe, stderr, and all command outputs of a report together.
import * as assert from 'assert';
import { ProbeCommandSpec } from '../../../src/core/probe/commands';
import { encodeDone, encodeHeader, encodeSection } from '../../../src/core/probe/frames';
import { runProbe } from '../../../src/core/probe/runProbe';
import { fixture } from './fakeHost';
import { HeadKeeper, PREAMBLE_KEEP_BYTES, ProbeStdout, REPORT_OUTPUT_BUDGET, STDERR_KEEP_BYTES } from '../../../src/core/probe/streamCaps';

const B = 'gdr-doctor-fixedtestboundary';
const COMMANDS: ProbeCommandSpec[] = [
  { id: 'one', command: 'echo one', timeoutS: 5 },
  { id: 'two', command: 'echo two', timeoutS: 5 },
];

/** What the script prints: its newline, the header, the sections, DONE. */
function probeStream(outputs: Record<string, Buffer> = { one: Buffer.from('one\n'), two: Buffer.from('two\n') }): Buffer {
  return Buffer.concat([
    Buffer.from('\n'),
    encodeHeader(B, { clock: 'cs', timeout: 'yes' }),
    ...COMMANDS.map((c) =>
      encodeSection(B, { id: c.id, exitCode: 0, durationMs: 10, limitS: 5, stdout: outputs[c.id], stderr: Buffer.alloc(0) }),
    ),
    encodeDone(B),
  ]);
}

/** Feeds `data` to the sink in chunks of `size` bytes. */
function feed(sink: { write(c: Buffer): boolean }, data: Buffer, size: number): boolean[] {
  const answers: boolean[] = [];
  for (let i = 0; i < data.length; i += size) answers.push(sink.write(data.subarray(i, i + size)));
  return answers;
}

describe('ProbeStdout', () => {
  it('finds the header across any chunk boundary, keeps the start of the noise before it and counts the rest', () => {
    const noise = Buffer.alloc(10 * PREAMBLE_KEEP_BYTES + 3, 0x1b);
    const whole = Buffer.concat([noise, probeStream()]);
    for (const size of [1, 7, 40, 4096, 65536, whole.length]) {
      const sink = new ProbeStdout(B, 1 << 20);
      assert.ok(feed(sink, whole, size).every((a) => a));
      const { stdout, preambleCutBytes } = sink.result();
      assert.strictEqual(preambleCutBytes, noise.length - PREAMBLE_KEEP_BYTES, `chunks of ${size}`);
      assert.deepStrictEqual(stdout, Buffer.concat([noise.subarray(0, PREAMBLE_KEEP_BYTES), probeStream()]), `chunks of ${size}`);
    }
  });

  it('keeps a stream without any header as preamble, bounded', () => {
    const sink = new ProbeStdout(B, 1 << 20);
    feed(sink, Buffer.from('sh: 1: Syntax error\n'), 3);
    assert.deepStrictEqual(sink.result(), { stdout: Buffer.from('sh: 1: Syntax error\n'), preambleCutBytes: 0 });
  });

  it('asks to stop once the framed part passes its cap', () => {
    const sink = new ProbeStdout(B, 100);
    const answers = feed(sink, probeStream({ one: Buffer.alloc(500, 0x41), two: Buffer.from('') }), 64);
    assert.strictEqual(answers.at(-1), false);
    assert.strictEqual(sink.result().stdout.length, 100);
  });
});

describe('HeadKeeper', () => {
  it('keeps the first bytes and counts the rest', () => {
    const keeper = new HeadKeeper(10);
    feed(keeper, Buffer.from('0123456789abcdef'), 3);
    assert.deepStrictEqual([keeper.contents().toString(), keeper.cutBytes], ['0123456789', 6]);
  });
});

describe('runProbe with huge streams', () => {
  it('keeps the start of stderr and of the text before the probe, and says what was cut', async () => {
    const noise = Buffer.alloc(5 * PREAMBLE_KEEP_BYTES, 0x41);
    const report = await runProbe(
      async () => ({
        stdout: Buffer.concat([noise, probeStream()]),
        stderr: Buffer.alloc(STDERR_KEEP_BYTES + 10, 0x42),
        stderrCutBytes: 1000,
        preambleCutBytes: 5000,
        exitCode: 0,
        connectionLost: false,
        timedOut: false,
      }),
      { host: 'h', commands: COMMANDS, boundary: B },
    );
    assert.strictEqual(report.finished, true);
    assert.deepStrictEqual(report.outputCut, {
      beforeProbe: { keptBytes: PREAMBLE_KEEP_BYTES, cutBytes: noise.length - PREAMBLE_KEEP_BYTES + 5000 },
      stderr: { keptBytes: STDERR_KEEP_BYTES, cutBytes: 1010 },
    });
    assert.deepStrictEqual(report.notes, [
      'B'.repeat(STDERR_KEEP_BYTES),
      `1010 more bytes on stderr were cut (the first ${STDERR_KEEP_BYTES} are kept above)`,
      'A'.repeat(PREAMBLE_KEEP_BYTES),
      `${noise.length - PREAMBLE_KEEP_BYTES + 5000} more bytes printed before the probe started (the login shell's output)` +
        ` were cut (the first ${PREAMBLE_KEEP_BYTES} are kept above)`,
    ]);
  });

  it('cuts command outputs where all of them together pass the report budget', async function () {
    this.timeout(20_000);
    const big = Buffer.alloc(REPORT_OUTPUT_BUDGET - 10, 0x61);
    const report = await runProbe(
      async () => ({
        stdout: probeStream({ one: big, two: Buffer.from('0123456789abcdef') }),
        stderr: Buffer.alloc(0),
        exitCode: 0,
        connectionLost: false,
        timedOut: false,
      }),
      { host: 'h', commands: COMMANDS, boundary: B },
    );
    const [one, two] = report.commands;
    assert.deepStrictEqual([one.stdout.length, one.truncated], [big.length, false]);
    assert.deepStrictEqual([two.stdout, two.truncated], ['0123456789', true]);
    assert.deepStrictEqual(report.outputCut, { commandOutputChars: 6 });
    assert.match(report.notes.at(-1) ?? '', /6 more were cut/);
  });

  it('reads a command stopped by the output cap as far as it went, marked partial', async () => {
    const lscpu = fixture('lscpu/seed-xeon-gold-5318y-2socket-old-layout.txt');
    const stream = Buffer.concat([
      encodeHeader(B, { clock: 'cs', timeout: 'yes' }),
      // 153 = 128 + SIGXFSZ: the file size limit stopped it (or the shell that ran it).
      encodeSection(B, {
        id: 'lscpu',
        exitCode: 153,
        durationMs: 10,
        limitS: 10,
        stdout: Buffer.from(lscpu),
        stderr: Buffer.alloc(100, 0x61),
        stderrTruncated: true,
      }),
      encodeDone(B),
    ]);
    const commands = [{ id: 'lscpu', command: 'lscpu', timeoutS: 10 }];
    const report = await runProbe(
      async () => ({ stdout: stream, stderr: Buffer.alloc(0), exitCode: 0, connectionLost: false, timedOut: false }),
      { host: 'h', commands, boundary: B },
    );
    assert.deepStrictEqual([report.facts.lscpu?.parsed.ok, report.facts.lscpu?.partial], [true, true]);
  });

  it('adds nothing to a report whose streams were short', async () => {
    const report = await runProbe(
      async () => ({ stdout: probeStream(), stderr: Buffer.alloc(0), exitCode: 0, connectionLost: false, timedOut: false }),
      { host: 'h', commands: COMMANDS, boundary: B },
    );
    assert.strictEqual(report.outputCut, undefined);
    assert.deepStrictEqual(report.notes, []);
  });
});
