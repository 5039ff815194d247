// Text from hosts on the CLI's output: control characters shown as OpenSSH shows them (utf8.c:
// each byte of the character as \ooo), printable UTF-8 kept, --json exact. The CLI runs through
// main() on a folder of saved outputs, one of which holds escape sequences (the lab test in
// test/ssh/terminalEscapes.test.ts shows the same over SSH in a real terminal).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../../src/cli';
import { CliIo } from '../../../src/cli/io';
import { FleetProgress } from '../../../src/cli/fleetOutput';
import { jsonText, visible } from '../../../src/cli/visible';
import { FIXTURES } from '../../support/paths';

/** OSC 52 (set the clipboard to "echo pwned"), clear screen, home, a fake prompt, an 8-bit CSI. */
const HOSTILE = 'driver\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b[Huser@laptop:~$ \x9b31mred';

function capture(): CliIo & { out: string; err: string; control: string } {
  const io = {
    out: '',
    err: '',
    control: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    stderrControl: (t: string) => void (io.control += t),
    readInput: () => '',
  };
  return io;
}

describe('visible: host text on a terminal, as OpenSSH prints it', () => {
  it('shows each control character as \\ooo per byte, keeps newline, tab and printable UTF-8', () => {
    assert.equal(visible('Verification code: '), 'Verification code: ');
    assert.equal(visible('Code für\tdich\n — 東京 ✓'), 'Code für\tdich\n — 東京 ✓');
    assert.equal(visible('\x1b[2JPassword: \x07'), '\\033[2JPassword: \\007');
    // DEL is one byte; U+009B (8-bit CSI) is two in UTF-8, and OpenSSH shows both.
    assert.equal(visible('a\x7fb\x9bc'), 'a\\177b\\302\\233c');
    assert.equal(visible('line\r\nover\rwrite\0'), 'line\\015\nover\\015write\\000');
  });

  it('leaves --json text unchanged and exact: JSON escapes the same characters', () => {
    const value = { evidence: [HOSTILE, 'tab\there', 'del\x7f'] };
    const text = jsonText(value);
    assert.equal(visible(text), text);
    assert.deepEqual(JSON.parse(text), value);
    assert.doesNotMatch(text, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('escapes megabytes of control characters a slice at a time, the same as in one piece', () => {
    // One replace() over tens of millions of matches aborts V8; slices of 1 Mi characters do not.
    // Here a few slices, with a character on every slice boundary.
    const long = `${HOSTILE}\u0085`.repeat(150_000);
    assert.equal(visible(long), `${visible(HOSTILE)}\\302\\205`.repeat(150_000));
    const text = jsonText({ long });
    assert.deepEqual(JSON.parse(text), { long });
    assert.doesNotMatch(text, /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it("gdr-doctor diagnose shows a host's escape sequences as text; --json keeps them exactly", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-visible-'));
    fs.copyFileSync(path.join(FIXTURES, 'topo/seed-xeon-gold-5318y-8gpu-3nic.txt'), path.join(dir, 'topo.txt'));
    fs.writeFileSync(path.join(dir, 'run-nvidia-driver.txt'), `present\n${HOSTILE}\n`);
    const human = capture();
    assert.equal(await main(['diagnose', '--from', dir], human), 0, human.err);
    assert.match(human.out, /driver\\033\]52;c;ZWNobyBwd25lZA==\\007\\033\[2J\\033\[Huser@laptop:~\$ \\302\\23331mred/);
    assert.doesNotMatch(
      human.out + human.err,
      /[\x00-\x09\x0b-\x1f\x7f-\x9f]/,
      'no control character but newline and tab reaches the terminal',
    );
    const json = capture();
    assert.equal(await main(['diagnose', '--from', dir, '--json'], json), 0, json.err);
    const report = JSON.parse(json.out) as { findings: { id: string; evidence: string[] }[] };
    const evidence = report.findings.find((f) => f.id === 'driver.operator-managed')?.evidence ?? [];
    assert.ok(
      evidence.some((e) => e.endsWith(HOSTILE)),
      JSON.stringify(evidence),
    );
  });

  it('the progress line still draws with its own control sequences', () => {
    const io = capture();
    const progress = new FleetProgress(4, io, true);
    progress.hostDone();
    progress.say('gdr-doctor: n1: cannot reach\n');
    progress.end();
    assert.equal(io.control, '\r1/4 hosts done\r\x1b[K\r1/4 hosts done\r\x1b[K');
    assert.equal(io.err, 'gdr-doctor: n1: cannot reach\n');
  });
});
