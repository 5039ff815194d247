// Fix plans from probed hosts: which commands, exactly, under which privilege, which file diff, and
// when a fix does nothing or refuses. Nothing runs here: plans are pure.
import * as assert from 'node:assert/strict';
import { PlanInput, planFix } from '../../../src/core/fixes';
import { ok } from '../../../src/core/parsers/result';
import {
  CONF,
  ETC_MODULES_TEXT,
  INBOX,
  LEGACY_ONLY,
  LOADED_AND_PERSISTED,
  LOADED_NOT_PERSISTED,
  NEEDS_PEERMEM,
  NO_MODULE,
  OPERATOR,
  SUDO,
  persistState,
  report,
} from './hosts';
import { HostFiles, fixture } from '../diagnosis/hostReport';
import { without } from '../diagnosis/hosts';
import { nvPeerMemService } from '../diagnosis/constructedInputs';

const MARKER = 'gdr-doctor-sudo-0123456789abcdef';

async function plan(files: HostFiles, fixId: PlanInput['fixId'] = 'load-peermem', state = persistState('directory')) {
  return planFix({ fixId, host: 'gpu-a', user: 'gdr', report: await report(files), persistState: ok(state), sudoMarker: MARKER });
}

describe('fix plans: load-peermem', () => {
  it('a module that exists but is not loaded: one modprobe through sudo -n, exactly as it will be sent', async () => {
    const p = await plan(NEEDS_PEERMEM);
    assert.equal(p.status, 'ready', p.summary);
    assert.equal(p.module, 'nvidia_peermem');
    assert.equal(p.privilege, 'sudo');
    assert.equal(p.steps.length, 1);
    const command = p.steps[0].command;
    assert.ok(command.startsWith("LC_ALL=C sudo -n /bin/sh -c 'PATH=/usr/sbin:/sbin:/usr/bin:/bin\nexport PATH\nLC_ALL=C\n"), command);
    // modprobe found only where root put it, the other module checked first, /sys/module checked after.
    const lines = command.split('\n');
    const at = (line: string) => lines.indexOf(line);
    assert.ok(at('M=$(tool modprobe) || exit 1') > 0, command);
    const otherCheck = lines.findIndex((l) => l.startsWith('if [ -d /sys/module/nv_peer_mem ]; then echo'));
    assert.ok(otherCheck > at('M=$(tool modprobe) || exit 1'), command);
    assert.ok(at('"$M" nvidia_peermem || exit $?') > otherCheck, command);
    assert.ok(command.endsWith(`echo "gdr-doctor: nvidia_peermem is loaded"'`), command);
    assert.equal(p.fileChange, null);
  });

  it('is skipped when the module is already loaded', async () => {
    const p = await plan(LOADED_AND_PERSISTED);
    assert.equal(p.status, 'nothing-to-do');
    assert.match(p.summary, /nvidia_peermem is already loaded/);
    assert.deepEqual(p.steps, []);
  });

  it('loads nv_peer_mem where only the legacy module exists', async () => {
    const p = await plan(LEGACY_ONLY);
    assert.equal(p.module, 'nv_peer_mem');
    assert.match(p.steps[0].command, /\n"\$M" nv_peer_mem \|\| exit \$\?\n/);
  });

  it('as root: the script runs directly; sudo with a password: -S and the marker, never a password', async () => {
    const root = await plan({ ...NEEDS_PEERMEM, 'sudo-n': SUDO.root });
    assert.equal(root.privilege, 'root');
    assert.match(root.steps[0].command, /^\/bin\/sh -c 'PATH=/);
    const pw = await plan({ ...NEEDS_PEERMEM, 'sudo-n': SUDO.password });
    assert.equal(pw.privilege, 'sudo-password');
    assert.match(pw.steps[0].command, new RegExp(`^LC_ALL=C sudo -S -p '${MARKER}' /bin/sh -c '`));
  });

  it('refuses, saying why, when the user cannot become root', async () => {
    const notAllowed = await plan({ ...NEEDS_PEERMEM, 'sudo-n': SUDO.notAllowed });
    assert.equal(notAllowed.status, 'refused');
    assert.match(
      notAllowed.summary,
      /gdr is not root and may not use sudo on gpu-a \(sudo said: Sorry, user nosudo may not run sudo on fx\.\)\. Log in as root/,
    );
    assert.deepEqual(notAllowed.steps, []);
    const noSudo = await plan({ ...NEEDS_PEERMEM, 'sudo-n': SUDO.notInstalled });
    assert.match(noSudo.summary, /sudo is not installed on gpu-a/);
    const unknown = await plan(without(NEEDS_PEERMEM, 'sudo-n'));
    assert.match(unknown.summary, /Could not tell whether gdr may become root/);
  });

  it('refuses where the GPU Operator owns the driver, citing the finding', async () => {
    const p = await plan(OPERATOR);
    assert.equal(p.status, 'refused');
    assert.match(p.summary, /GPU Operator owns the driver/);
    assert.deepEqual(
      p.findings.map((f) => f.id),
      ['driver.operator-managed'],
    );
  });

  it('refuses on the inbox ib_core (it cannot load) and where no module exists', async () => {
    const inbox = await plan(INBOX);
    assert.equal(inbox.status, 'refused');
    assert.match(inbox.summary, /Invalid argument/);
    assert.deepEqual(
      inbox.findings.map((f) => f.id),
      ['peermem.ofed-mismatch'],
    );
    const none = await plan(NO_MODULE);
    assert.equal(none.status, 'refused');
    assert.deepEqual(
      none.findings.map((f) => f.id),
      ['peermem.missing'],
    );
  });

  it('refuses when the probe did not finish', async () => {
    const r = await report(NEEDS_PEERMEM);
    const p = planFix({
      fixId: 'load-peermem',
      host: 'gpu-a',
      user: 'gdr',
      report: { ...r, connectionLost: true, finished: false },
      sudoMarker: MARKER,
    });
    assert.equal(p.status, 'refused');
    assert.match(p.summary, /did not finish \(connection lost\)/);
  });
});

describe('fix plans: persist-peermem', () => {
  it('a loaded module, modules-load.d present: one atomic write of a new file, shown as a diff', async () => {
    const p = await plan(LOADED_NOT_PERSISTED, 'persist-peermem');
    assert.equal(p.status, 'ready', p.summary);
    assert.deepEqual(
      p.steps.map((s) => s.kind),
      ['persist'],
    );
    assert.match(
      p.steps[0].command,
      /mktemp "\/etc\/modules-load\.d\/\.nvidia-peermem\.conf\.gdr-doctor\.XXXXXX"[\s\S]*mv -f -- "\$t" "\$f"/,
    );
    assert.equal(p.fileChange?.path, CONF);
    assert.equal(p.fileChange?.before, null);
    assert.equal(
      p.fileChange?.after,
      '# GPUDirect RDMA peer-memory module, loaded at boot (written by gdr-doctor persist-peermem)\nnvidia-peermem\n',
    );
    assert.match(p.fileChange?.diff ?? '', /^--- \/dev\/null\n\+\+\+ \/etc\/modules-load\.d\/nvidia-peermem\.conf\n@@ -0,0 \+1,2 @@\n/);
  });

  it('a module not loaded yet is loaded first, so nothing is persisted that cannot load', async () => {
    const p = await plan(NEEDS_PEERMEM, 'persist-peermem');
    assert.deepEqual(
      p.steps.map((s) => s.kind),
      ['load', 'persist'],
    );
  });

  it('is idempotent: nothing to do when a boot file already names the module', async () => {
    const probed = await plan(LOADED_AND_PERSISTED, 'persist-peermem');
    assert.equal(probed.status, 'nothing-to-do');
    assert.match(probed.summary, /already loaded at boot by \/etc\/modules-load\.d\/nvidia-peermem\.conf/);
    // The probe saw no file, but the live read of the target does (e.g. written meanwhile).
    const live = await plan(
      LOADED_NOT_PERSISTED,
      'persist-peermem',
      persistState('directory', { [CONF]: { kind: 'regular', content: '# x\nnvidia_peermem  \n' } }),
    );
    assert.equal(live.status, 'nothing-to-do');
    assert.match(live.summary, /already names nvidia-peermem \(line 2\)/);
    // Commented out does not count.
    const commented = await plan(
      LOADED_NOT_PERSISTED,
      'persist-peermem',
      persistState('directory', { [CONF]: { kind: 'regular', content: '#nvidia-peermem\n' } }),
    );
    assert.equal(commented.status, 'ready');
    assert.equal(commented.fileChange?.after, '#nvidia-peermem\nnvidia-peermem\n');
  });

  it('without modules-load.d, appends one line to /etc/modules (a real Ubuntu one)', async () => {
    const p = await plan(
      LOADED_NOT_PERSISTED,
      'persist-peermem',
      persistState('absent', { '/etc/modules': { kind: 'regular', content: ETC_MODULES_TEXT } }),
    );
    assert.equal(p.status, 'ready', p.summary);
    assert.equal(p.fileChange?.path, '/etc/modules');
    assert.equal(p.fileChange?.after, `${ETC_MODULES_TEXT}nvidia-peermem\n`);
    assert.equal(p.fileChange?.diff, '--- /etc/modules\n+++ /etc/modules\n@@ -6,3 +6,4 @@\n lp\n psmouse\n eepro100\n+nvidia-peermem\n');
    assert.match(p.steps[0].command, /\nf=\/etc\/modules\n/);
  });

  it('adds the missing final newline before its line', async () => {
    const p = await plan(
      LOADED_NOT_PERSISTED,
      'persist-peermem',
      persistState('absent', { '/etc/modules': { kind: 'regular', content: 'lp\nrtc' } }),
    );
    assert.equal(p.fileChange?.after, 'lp\nrtc\nnvidia-peermem\n');
    assert.equal(
      p.fileChange?.diff,
      '--- /etc/modules\n+++ /etc/modules\n@@ -1,2 +1,3 @@\n lp\n-rtc\n\\ No newline at end of file\n+rtc\n+nvidia-peermem\n',
    );
  });

  it('refuses where it would not know what it changes', async () => {
    const neither = await plan(LOADED_NOT_PERSISTED, 'persist-peermem', persistState('absent'));
    assert.match(neither.summary, /neither \/etc\/modules-load\.d nor \/etc\/modules/);
    const link = await plan(LOADED_NOT_PERSISTED, 'persist-peermem', persistState('directory', { [CONF]: { kind: 'symlink' } }));
    assert.match(link.summary, /nvidia-peermem\.conf exists but is not a regular file/);
    const unread = planFix({
      fixId: 'persist-peermem',
      host: 'gpu-a',
      user: 'gdr',
      report: await report(LOADED_NOT_PERSISTED),
      sudoMarker: MARKER,
    });
    assert.match(unread.summary, /Could not read \/etc\/modules-load\.d and \/etc\/modules/);
    for (const p of [neither, link, unread]) assert.equal(p.status, 'refused');
  });

  it('never persists a module that cannot load, nor under the GPU Operator', async () => {
    const inbox = await plan(INBOX, 'persist-peermem');
    assert.equal(inbox.status, 'refused');
    assert.match(inbox.summary, /It is not persisted\.$/);
    const operator = await plan({ ...OPERATOR, lsmod: LOADED_NOT_PERSISTED.lsmod }, 'persist-peermem');
    assert.equal(operator.status, 'refused');
    assert.deepEqual(operator.steps, []);
  });

  it('persists the legacy module where only it exists', async () => {
    const p = await plan(LEGACY_ONLY, 'persist-peermem');
    assert.deepEqual(
      p.steps.map((s) => s.title),
      [
        'load nv_peer_mem (modprobe nv_peer_mem)',
        'add the line "nv_peer_mem" to /etc/modules-load.d/nv_peer_mem.conf (temp file in the same directory, then rename)',
      ],
    );
    assert.equal(p.module, 'nv_peer_mem');
    assert.equal(p.fileChange?.path, '/etc/modules-load.d/nv_peer_mem.conf');
    assert.match(p.fileChange?.after ?? '', /\nnv_peer_mem\n$/);
  });

  it('persists nv_peer_mem, without loading anything, where the legacy module is the one loaded', async () => {
    const p = await plan({ ...LEGACY_ONLY, lsmod: fixture('lsmod/egx-grep-nv-peer-mem-legacy.txt') }, 'persist-peermem');
    assert.equal(p.status, 'ready', p.summary);
    assert.equal(p.module, 'nv_peer_mem');
    assert.deepEqual(
      p.steps.map((s) => s.kind),
      ['persist'],
    );
  });

  it('the legacy nv_peer_mem service enabled: disabled in the same plan, shown as its own step, checked by the script', async () => {
    const service = { ...LOADED_NOT_PERSISTED, 'nv-peer-mem-service': nvPeerMemService('enabled', 'inactive') };
    const p = await plan(service, 'persist-peermem');
    assert.equal(p.status, 'ready', p.summary);
    assert.deepEqual(
      p.steps.map((s) => s.title),
      [
        'add the line "nvidia-peermem" to /etc/modules-load.d/nvidia-peermem.conf (temp file in the same directory, then rename)',
        'disable the legacy nv_peer_mem service (systemctl disable nv_peer_mem.service): it would load nv_peer_mem at boot too',
      ],
    );
    assert.match(p.steps[1].command, /C=\$\(tool systemctl\) \|\| exit 1\n"\$C" disable nv_peer_mem\.service\n/);
    assert.match(p.steps[1].command, /case \$s in enabled\*\) echo "gdr-doctor: nv_peer_mem\.service is still \$s/);
    assert.ok(p.notes.some((n) => n.startsWith('nv_peer_mem.service is enabled: the plan disables it')));
    // Not where the legacy module itself is what gets persisted.
    const legacy = await plan(
      {
        ...LEGACY_ONLY,
        lsmod: fixture('lsmod/egx-grep-nv-peer-mem-legacy.txt'),
        'nv-peer-mem-service': nvPeerMemService('enabled', 'active'),
      },
      'persist-peermem',
    );
    assert.equal(legacy.steps.length, 1);
  });
});
