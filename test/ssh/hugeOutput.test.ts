// Huge output never breaks a report: a host whose login script prints ~95 MiB of control
// characters on stdout and on stderr before the probe starts, and a command that floods its stderr.
// `diagnose --json` still reports the host, keeps a bounded part of each stream and says how much
// was cut. Real sshd, the user's real ~/.bashrc (Debian's bash reads it for sshd's sessions).
import * as assert from 'node:assert/strict';
import { runCli } from '../support/cli';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';

const NOISE_BYTES = 95 * 1024 * 1024;
const CAP = 8 * 1024 * 1024; // the probe's cap per command stream (commands.ts DEFAULT_MAX_OUTPUT_BYTES)
// ESC bytes: JSON writes each as \u001b (6 characters), so 95 MiB of them is ~570 million characters,
// past V8's longest string. No newline at the end: the probe's header must still be found.
const NOISY_BASHRC = [
  `head -c ${NOISE_BYTES} /dev/zero | tr '\\000' '\\033'`,
  `head -c ${NOISE_BYTES} /dev/zero | tr '\\000' '\\033' >&2`,
].join('\n');

describe('huge output over SSH', function () {
  this.timeout(180_000);
  let lab: Lab;

  before(async () => {
    assertLabCanRun();
    await cleanupStale();
    lab = await startLab({ hosts: [{ name: 'gpu-noisy', profile: 'healthy', bashrcFirst: NOISY_BASHRC }] });
  });
  after(async () => lab?.stop());
  afterEach(() => lab.host('gpu-noisy').clearFaults());

  it('diagnose --json reports the host, keeps the start of each stream and says what was cut', async () => {
    lab.host('gpu-noisy').setFault('lscpu', 'flood-stderr', 12 * 1024 * 1024);
    const r = await runCli(['diagnose', '-F', lab.sshConfigPath, 'gpu-noisy', '--json']);
    assert.equal(r.status, 0, r.stderr.slice(0, 2000));
    const report = JSON.parse(r.stdout);
    assert.equal(report.finished, true);
    assert.equal(report.connectionLost, false);
    assert.equal(report.facts.topo.parsed.ok, true);
    assert.equal(report.facts.lscpu.parsed.ok, true);
    // What the login script printed: a bounded start of each stream, and the count of the rest.
    const cut = report.outputCut;
    assert.ok(cut.beforeProbe.keptBytes > 0 && cut.beforeProbe.keptBytes <= 64 * 1024, JSON.stringify(cut));
    assert.equal(cut.beforeProbe.keptBytes + cut.beforeProbe.cutBytes, NOISE_BYTES);
    assert.ok(cut.stderr.keptBytes > 0 && cut.stderr.keptBytes <= 64 * 1024, JSON.stringify(cut));
    assert.equal(cut.stderr.keptBytes + cut.stderr.cutBytes, NOISE_BYTES);
    assert.ok(
      report.notes.some((n: string) => /before the probe started/.test(n) && n.includes(String(cut.beforeProbe.cutBytes))),
      report.notes.map((n: string) => n.slice(-200)).join(' | '),
    );
    assert.ok(report.notes.some((n: string) => /on stderr/.test(n) && n.includes(String(cut.stderr.cutBytes))));
    // The command that flooded its stderr: cut at the probe's cap and flagged.
    const lscpu = report.commands.find((c: { id: string }) => c.id === 'lscpu');
    assert.equal(lscpu.truncated, true);
    assert.equal(lscpu.stderr.length, CAP);
    assert.ok(lscpu.stderr.startsWith('gdrlab flood on stderr\n'));
    assert.ok(r.stdout.length < 64 * 1024 * 1024, `the JSON report is ${r.stdout.length} characters`);
  });

  it('the human report names the host as diagnosed, not unreachable', async () => {
    const r = await runCli(['diagnose', '-F', lab.sshConfigPath, 'gpu-noisy']);
    assert.equal(r.status, 0, r.stderr.slice(0, 2000));
    assert.match(r.stdout, /^gpu-noisy — collected/);
    assert.doesNotMatch(r.stderr, /cannot reach|RangeError/);
  });
});
