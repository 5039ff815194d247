// Applying plans through a fake shell: steps in order, the first failure stops everything after it,
// sudo's password asked once and only on stdin, modprobe's "Invalid argument" becomes
// peermem.ofed-mismatch, and success is what the host shows afterwards, not an exit status.
import * as assert from 'node:assert/strict';
import { FixPlan, RemoteShell, ShellResult, applyFix, planFix } from '../../../src/core/fixes';
import { Parsed, ok } from '../../../src/core/parsers/result';
import { PersistState } from '../../../src/core/fixes';
import { CONF, LOADED_NOT_PERSISTED, NEEDS_PEERMEM, SUDO, persistState, report } from './hosts';
import { joinedRegExp } from '../../support/joinedRegExp';

const MARKER = 'gdr-doctor-sudo-feedc0ffee';

interface Call {
  command: string;
  stdin?: string;
}

/** Answers each command with the next reply; records what it was sent. */
function fakeShell(replies: Partial<ShellResult>[]): RemoteShell & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    run: async (command, { stdin }) => {
      calls.push({ command, stdin });
      const r = replies.shift() ?? {};
      return { exitCode: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), connectionLost: false, timedOut: false, ...r };
    },
  };
}

const text = (s: string) => Buffer.from(s);
const written: Parsed<PersistState> = ok(
  persistState('directory', {
    [CONF]: {
      kind: 'regular',
      content: '# GPUDirect RDMA peer-memory module, loaded at boot (written by gdr-doctor persist-peermem)\nnvidia-peermem\n',
    },
  }),
);

async function planned(files = NEEDS_PEERMEM, fixId: FixPlan['fixId'] = 'persist-peermem'): Promise<FixPlan> {
  return planFix({
    fixId,
    host: 'gpu-a',
    user: 'pwuser',
    report: await report(files),
    persistState: ok(persistState('directory')),
    sudoMarker: MARKER,
  });
}

function options(shell: RemoteShell, password: string | null = null) {
  const asked = { n: 0 };
  return {
    asked,
    opts: {
      shell,
      sudoMarker: MARKER,
      sudoPassword: async () => (asked.n++, password),
      reprobe: () => report(LOADED_NOT_PERSISTED),
      rereadState: async () => written,
    },
  };
}

describe('applying fix plans', () => {
  it('runs load then persist and verifies both from the host', async () => {
    const shell = fakeShell([{}, { stdout: text('gdr-doctor: wrote /etc/modules-load.d/nvidia-peermem.conf\n') }]);
    const result = await applyFix(await planned(), options(shell).opts);
    assert.equal(result.status, 'applied', result.message);
    assert.equal(shell.calls.length, 2);
    assert.deepEqual(result.verification, [
      'lsmod / /sys/module: nvidia_peermem is loaded',
      '/sys/kernel/mm/memory_peers: registered nv_mem',
      `${CONF}: line 2 names nvidia-peermem`,
    ]);
  });

  it("asks sudo's password once, sends it on stdin to every step, and keeps it out of the result", async () => {
    const shell = fakeShell([{ stderr: text(MARKER) }, { stderr: text(MARKER) }]);
    const plan = await planned({ ...NEEDS_PEERMEM, 'sudo-n': SUDO.password });
    const { opts, asked } = options(shell, 's3cret-pw');
    const result = await applyFix(plan, opts);
    assert.equal(result.status, 'applied', result.message);
    assert.equal(asked.n, 1);
    assert.deepEqual(
      shell.calls.map((c) => c.stdin),
      ['s3cret-pw\n', 's3cret-pw\n'],
    );
    assert.ok(shell.calls.every((c) => !c.command.includes('s3cret-pw')));
    assert.doesNotMatch(JSON.stringify(result), /s3cret-pw/);
    assert.ok(
      result.steps.every((s) => s.stderr === ''),
      'the prompt marker is removed from what the host printed',
    );
  });

  it('a wrong password stops at once with a clear message', async () => {
    // What sudo 1.9 prints for one wrong password on stdin (seen in the lab), with our marker as its prompt.
    const stderr = `${MARKER}Sorry, try again.\n${MARKER}\nsudo: no password was provided\nsudo: 1 incorrect password attempt\n`;
    const shell = fakeShell([{ exitCode: 1, stderr: text(stderr) }]);
    const result = await applyFix(await planned({ ...NEEDS_PEERMEM, 'sudo-n': SUDO.password }), options(shell, 'wrong').opts);
    assert.equal(result.status, 'failed');
    assert.match(
      result.message,
      /^sudo did not accept the password of pwuser on gpu-a, so "load nvidia_peermem \(modprobe nvidia_peermem\)" did not run: nothing was changed\./,
    );
    assert.equal(shell.calls.length, 1);
  });

  it('no password given: refused before anything runs', async () => {
    const shell = fakeShell([]);
    const result = await applyFix(await planned({ ...NEEDS_PEERMEM, 'sudo-n': SUDO.password }), options(shell, null).opts);
    assert.equal(result.status, 'refused');
    assert.equal(shell.calls.length, 0);
  });

  it('modprobe "Invalid argument": peermem.ofed-mismatch, and the persist step never runs', async () => {
    const shell = fakeShell([{ exitCode: 1, stderr: text("modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument\n") }]);
    const result = await applyFix(await planned(), options(shell).opts);
    assert.equal(result.status, 'failed');
    assert.equal(shell.calls.length, 1);
    assert.deepEqual(
      result.findings.map((f) => [f.id, f.severity]),
      [['peermem.ofed-mismatch', 'error']],
    );
    assert.match(
      result.message,
      joinedRegExp(
        [
          /"load nvidia_peermem \(modprobe nvidia_peermem\)" failed \(exit 1\): nothing was changed\. This is peermem\.ofed-mismatch.*/,
          / Nothing was persisted\. The host printed:\nmodprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument$/,
        ],
        's',
      ),
    );
  });

  it('a later step failing says which one, what the host printed, and that the earlier ones ran', async () => {
    const shell = fakeShell([{}, { exitCode: 1, stderr: text('mktemp: failed to create file via template\n') }]);
    const result = await applyFix(await planned(), options(shell).opts);
    assert.equal(result.status, 'failed');
    assert.match(
      result.message,
      joinedRegExp(
        [
          /^"add the line "nvidia-peermem" to \/etc\/modules-load\.d\/nvidia-peermem\.conf .*"/,
          / failed \(exit 1\): the steps before it ran, nothing after it\. The host printed:\nmktemp: failed/,
        ],
        's',
      ),
    );
    assert.deepEqual(result.findings, []);
  });

  it('a lost connection or a timeout is not reported as a plain failure of the command', async () => {
    const lost = await applyFix(await planned(), options(fakeShell([{ exitCode: null, connectionLost: true }])).opts);
    assert.match(lost.message, /connection to gpu-a was lost while running "load nvidia_peermem/);
    const slow = await applyFix(await planned(), options(fakeShell([{ exitCode: null, timedOut: true }])).opts);
    assert.match(slow.message, /did not finish within 60 s/);
  });

  it('an exit status of 0 is not enough: the module must show up loaded and registered', async () => {
    const shell = fakeShell([{}]);
    const { opts } = options(shell);
    const result = await applyFix(await planned(NEEDS_PEERMEM, 'load-peermem'), { ...opts, reprobe: () => report(NEEDS_PEERMEM) });
    assert.equal(result.status, 'failed');
    assert.match(result.message, /modprobe nvidia_peermem exited 0, but probing again does not show nvidia_peermem loaded/);
  });

  it('a plan with nothing to do runs nothing', async () => {
    const shell = fakeShell([]);
    const result = await applyFix(await planned(LOADED_NOT_PERSISTED, 'load-peermem'), options(shell).opts);
    assert.equal(result.status, 'nothing-to-do');
    assert.equal(shell.calls.length, 0);
  });
});
