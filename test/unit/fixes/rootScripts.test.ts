// The root scripts of the ACS and peer-memory fixes, run for real by the local /bin/sh against a temporary root: their
// system directories, /sys, /proc and /dev/vfio rewritten into it, and root's uid to the test's own (the
// only changes). The PCI tree is laid out as Linux lays it out (a device's folder under its bridges, a
// /sys/bus/pci/devices link to it); setpci is a small fake over per-device files that answers as pciutils
// does, including "Warning: No devices selected" with exit 0 for an address that has no device.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { acsBootScript } from '../../../src/core/fixes/acsBoot';
import { disableAcsScript } from '../../../src/core/fixes/acsScripts';
import { HOLDERS_EXIT, parseHolders } from '../../../src/core/fixes/holders';
import { PciTarget } from '../../../src/core/fixes/rootChecks';
import { disableLegacyServiceScript, loadScript } from '../../../src/core/fixes/scripts';

let root: string;
const uid = String(process.getuid?.() ?? 0);

/** Two switch ports and a GPU below the first, as in the lab's HGX tree. */
const DSP1: PciTarget = { bdf: '0000:17:01.0', path: '/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0', id: '1000:c030' };
const DSP2: PciTarget = { bdf: '0000:17:02.0', path: '/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:02.0', id: '1000:c030' };
const GPU: PciTarget = { bdf: '0000:19:00.0', path: `${DSP1.path}/0000:19:00.0`, id: '10de:2330' };

const SETPCI = `#!/bin/sh
# fake setpci -s BDF ECAP_ACS+0x6.w[=VALUE] over $ROOT/acs/<bdf>
[ "$1" = -s ] || exit 2
f="$(dirname "$0")/../acs/$2"
if [ ! -e "$f" ]; then echo "setpci: Warning: No devices selected for operation group 1." >&2; exit 0; fi
case $3 in *=*) printf "%04x\\n" "0x\${3#*=}" > "$f";; *) cat "$f";; esac
`;

function device(t: PciTarget): void {
  const dir = path.join(root, t.path);
  fs.mkdirSync(dir, { recursive: true });
  const [v, d] = t.id.split(':');
  fs.writeFileSync(path.join(dir, 'vendor'), `0x${v}\n`);
  fs.writeFileSync(path.join(dir, 'device'), `0x${d}\n`);
  const link = path.join(root, 'sys/bus/pci/devices', t.bdf);
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { force: true });
  fs.symlinkSync(path.relative(path.dirname(link), dir), link);
}

function holder(pid: number, comm: string, target: string): void {
  fs.mkdirSync(path.join(root, 'proc', String(pid), 'fd'), { recursive: true });
  fs.writeFileSync(path.join(root, 'proc', String(pid), 'comm'), `${comm}\n`);
  fs.symlinkSync(target, path.join(root, 'proc', String(pid), 'fd', '3'));
}

function run(script: string, ...args: string[]) {
  const local = script
    .split('for d in /usr/sbin /sbin /usr/bin /bin;')
    .join(`for d in ${root}/bin;`)
    .split('/usr/sbin|/sbin|/usr/bin|/bin)')
    .join(`${root}/bin)`)
    .split('[ "$u" = 0 ]')
    .join(`[ "$u" = ${uid} ]`)
    .split('[ "$4" = 0 ]')
    .join(`[ "$4" = ${uid} ]`)
    .split('/sys/')
    .join(`${root}/sys/`)
    .split('/proc/')
    .join(`${root}/proc/`)
    .split('/dev/vfio')
    .join(`${root}/dev/vfio`);
  const r = spawnSync('/bin/sh', ['-c', local, 'sh', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const acs = (bdf: string) => fs.readFileSync(path.join(root, 'acs', bdf), 'utf8').trim();
const setAcs = (bdf: string, v: string) => fs.writeFileSync(path.join(root, 'acs', bdf), `${v}\n`);

describe('root scripts (ACS, peer memory), run by a real sh', () => {
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-root-scripts-'));
    fs.chmodSync(root, 0o755);
    for (const d of ['bin', 'acs', 'proc/self/fd', 'dev']) fs.mkdirSync(path.join(root, d), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(root, 'bin/setpci'), SETPCI, { mode: 0o755 });
    fs.writeFileSync(path.join(root, 'proc/cmdline'), 'BOOT_IMAGE=/vmlinuz ro quiet\n');
    for (const t of [DSP1, DSP2, GPU]) device(t);
    setAcs(DSP1.bdf, '001d');
    setAcs(DSP2.bdf, '001d');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('disable-acs: checks each bridge, then writes 0000 and reads it back', () => {
    const r = run(disableAcsScript([DSP1, DSP2], false));
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual([acs(DSP1.bdf), acs(DSP2.bdf)], ['0000', '0000']);
    assert.match(r.stdout, /0000:17:01\.0: ACSCtl 001d -> 0000/);
  });

  it('a bridge that is gone (setpci: "No devices selected", exit 0): fails, nothing written', () => {
    fs.rmSync(path.join(root, 'sys/bus/pci/devices', DSP2.bdf));
    const r = run(disableAcsScript([DSP1, DSP2], false));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /0000:17:02\.0: no such PCI device now \(removed, or the buses renumbered\)/);
    assert.deepEqual([acs(DSP1.bdf), acs(DSP2.bdf)], ['001d', '001d']);
    // Still listed in sysfs, but setpci selects nothing there: the write is not reported as done.
    device(DSP2);
    fs.rmSync(path.join(root, 'acs', DSP2.bdf));
    const gone = run(disableAcsScript([DSP1, DSP2], false));
    assert.equal(gone.status, 1);
    assert.match(gone.stderr, /0000:17:02\.0: setpci selects no device \(setpci: Warning: No devices selected/);
  });

  it('a renumbered bus or another card at the address: refuses before writing', () => {
    // The plan saw 0000:17:02.0 below another switch port than where that address is now.
    const other = { ...DSP2, path: DSP2.path.replace('0000:16:00.0', '0000:16:01.0') };
    const r = run(disableAcsScript([DSP1, other], false));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /0000:17:02\.0 is now at .*\/0000:17:02\.0, not at /);
    const retyped = run(disableAcsScript([DSP1, { ...DSP2, id: '8086:352a' }], false));
    assert.match(retyped.stderr, /0000:17:02\.0 is now 1000:c030, not 8086:352a/);
    assert.deepEqual([acs(DSP1.bdf), acs(DSP2.bdf)], ['001d', '001d']);
  });

  it('a process holding /dev/nvidia0: lists it and stops (exit 75) unless forced; daemons do not stop it', () => {
    holder(4242, 'python3', '/dev/nvidia0');
    holder(77, 'nvidia-persiste', '/dev/nvidia0');
    const r = run(disableAcsScript([DSP1, DSP2], false));
    assert.equal(r.status, HOLDERS_EXIT);
    assert.deepEqual(parseHolders(r.stdout), [
      { pid: 4242, command: 'python3', devices: ['/dev/nvidia0'], daemon: false },
      { pid: 77, command: 'nvidia-persiste', devices: ['/dev/nvidia0'], daemon: true },
    ]);
    assert.equal(acs(DSP1.bdf), '001d');
    const forced = run(disableAcsScript([DSP1, DSP2], true));
    assert.equal(forced.status, 0, forced.stderr);
    assert.equal(acs(DSP1.bdf), '0000');
    fs.rmSync(path.join(root, 'proc/4242'), { recursive: true });
    setAcs(DSP1.bdf, '001d');
    assert.equal(run(disableAcsScript([DSP1], false)).status, 0, 'the persistence daemon alone does not stop it');
  });

  it('setpci only where a user could have put it: not used', () => {
    fs.chmodSync(path.join(root, 'bin/setpci'), 0o757);
    const r = run(disableAcsScript([DSP1], false));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no root-owned setpci in \/usr\/sbin, \/sbin, \/usr\/bin or \/bin/);
    assert.equal(acs(DSP1.bdf), '001d');
  });

  it('the boot step: --check checks only; renumbered, VFIO or a translating IOMMU: fails, writes nothing', () => {
    const boot = acsBootScript([DSP1, DSP2], [GPU]);
    const check = run(boot, '--check');
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stdout, /every check passed \(--check: nothing written\)/);
    assert.equal(acs(DSP1.bdf), '001d');
    const ok = run(boot);
    assert.equal(ok.status, 0, ok.stderr);
    assert.deepEqual([acs(DSP1.bdf), acs(DSP2.bdf)], ['0000', '0000']);
    setAcs(DSP1.bdf, '001d');
    // A new card renumbered the buses: the bridge's address now leads elsewhere.
    fs.rmSync(path.join(root, 'sys/bus/pci/devices', DSP1.bdf));
    const moved = run(boot);
    assert.equal(moved.status, 1);
    assert.match(moved.stderr, /0000:17:01\.0: no such PCI device now/);
    assert.match(moved.stderr, /a bridge is not the one persist-acs was set up for: nothing written/);
    assert.equal(acs(DSP1.bdf), '001d');
    device(DSP1);
    fs.mkdirSync(path.join(root, 'dev/vfio'));
    fs.writeFileSync(path.join(root, 'dev/vfio/12'), '');
    assert.match(run(boot).stderr, /IOMMU group 12 is held by VFIO/);
    fs.rmSync(path.join(root, 'dev/vfio'), { recursive: true });
    fs.mkdirSync(path.join(root, 'sys/kernel/iommu_groups/5'), { recursive: true });
    fs.mkdirSync(path.join(root, GPU.path, 'iommu_group'));
    fs.writeFileSync(path.join(root, GPU.path, 'iommu_group/type'), 'DMA-FQ\n');
    assert.match(run(boot).stderr, /the IOMMU translates DMA of 0000:19:00\.0 \(group type DMA-FQ\)/);
    fs.rmSync(path.join(root, GPU.path, 'iommu_group/type'));
    assert.match(run(boot).stderr, /group type of 0000:19:00\.0 cannot be read and the command line shows no passthrough/);
    fs.writeFileSync(path.join(root, 'proc/cmdline'), 'BOOT_IMAGE=/vmlinuz ro intel_iommu=on iommu=pt\n');
    assert.equal(run(boot).status, 0);
    assert.equal(acs(DSP1.bdf), '0000');
  });

  it('the legacy service: disabled by the root-owned systemctl, and checked to read back as not enabled', () => {
    const systemctl = (answer: string) =>
      fs.writeFileSync(
        path.join(root, 'bin/systemctl'),
        `#!/bin/sh\necho "$*" >> "$(dirname "$0")/../systemctl.log"\n[ "$1" = is-enabled ] && echo ${answer}\nexit 0\n`,
        { mode: 0o755 },
      );
    systemctl('disabled');
    const r = run(disableLegacyServiceScript());
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      fs.readFileSync(path.join(root, 'systemctl.log'), 'utf8'),
      'disable nv_peer_mem.service\nis-enabled nv_peer_mem.service\n',
    );
    systemctl('enabled');
    const still = run(disableLegacyServiceScript());
    assert.equal(still.status, 1);
    assert.match(still.stderr, /nv_peer_mem\.service is still enabled after systemctl disable/);
  });

  it('load-peermem: modprobe only where root put it, never beside the other module, and loaded means /sys/module shows it', () => {
    // A fake modprobe that logs its call and loads as the kernel shows it: a folder in /sys/module,
    // unless told to exit 0 without loading (an install line in modprobe.d can do that) or to fail.
    const modprobe = (behaviour: 'load' | 'skip' | 'fail') =>
      fs.writeFileSync(
        path.join(root, 'bin/modprobe'),
        `#!/bin/sh\necho "$*" >> "$(dirname "$0")/../modprobe.log"\n` +
          {
            load: 'mkdir -p "$(dirname "$0")/../sys/module/$1"',
            skip: ':',
            fail: `echo "modprobe: ERROR: could not insert '$1': Invalid argument" >&2; exit 1`,
          }[behaviour] +
          '\n',
        { mode: 0o755 },
      );
    const calls = () => (fs.existsSync(path.join(root, 'modprobe.log')) ? fs.readFileSync(path.join(root, 'modprobe.log'), 'utf8') : '');
    fs.mkdirSync(path.join(root, 'sys/module'), { recursive: true });
    modprobe('load');
    const ok = run(loadScript('nvidia_peermem'));
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stdout, 'gdr-doctor: nvidia_peermem is loaded\n');
    assert.ok(fs.existsSync(path.join(root, 'sys/module/nvidia_peermem')));
    // The other peer-memory module appeared since the plan: modprobe does not run.
    const other = run(loadScript('nv_peer_mem'));
    assert.equal(other.status, 1);
    assert.match(other.stderr, /nvidia_peermem is loaded, and only one peer-memory module may be: nothing was changed/);
    assert.equal(calls(), 'nvidia_peermem\n');
    fs.rmSync(path.join(root, 'sys/module/nvidia_peermem'), { recursive: true });
    modprobe('skip');
    const skipped = run(loadScript('nvidia_peermem'));
    assert.equal(skipped.status, 1);
    assert.match(skipped.stderr, /modprobe nvidia_peermem exited 0, but \S*\/sys\/module\/nvidia_peermem is absent: not loaded/);
    modprobe('fail');
    const failed = run(loadScript('nvidia_peermem'));
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /could not insert 'nvidia_peermem': Invalid argument/);
    fs.chmodSync(path.join(root, 'bin/modprobe'), 0o777);
    const untrusted = run(loadScript('nvidia_peermem'));
    assert.equal(untrusted.status, 1);
    assert.match(untrusted.stderr, /no root-owned modprobe in \/usr\/sbin, \/sbin, \/usr\/bin or \/bin: nothing was changed/);
    assert.equal(calls(), 'nvidia_peermem\n'.repeat(3), 'the writable modprobe never ran');
  });
});
