// persist-acs on the lab's HGX host as probe outputs: the kernel's own pci=disable_acs_redir= in the
// bootloader's command line where the kernel has it and the files can be edited, else the checked boot
// unit (saying why), nothing where DGX OS's package manages ACS; and the bootloader script run by a real
// sh against a temporary root (its /etc and /boot paths rewritten).
// CONSTRUCTED INPUTS: the /etc/default/grub text below is Ubuntu's stock layout as grub2's debian
// packaging installs it (header comment with its single quotes, GRUB_CMDLINE_LINUX_DEFAULT, an empty
// GRUB_CMDLINE_LINUX); the BLS entry follows the Boot Loader Specification's keys (title, version, linux,
// initrd, options). No real copy of either is among the fixtures.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FixPlan, planFix } from '../../../src/core/fixes';
import { ACS_BOOT_SCRIPT, ACS_UNIT, ACS_WANTS, GRUB_DEFAULT, acsUnit } from '../../../src/core/fixes/acsBoot';
import { acsSelector, cmdlineEdit, cmdlineScript } from '../../../src/core/fixes/acsCmdline';
import { PersistState } from '../../../src/core/fixes/persistState';
import { ok } from '../../../src/core/parsers/result';
import { pcieHost } from '../diagnosis/pcieHost';
import { HostFiles } from '../diagnosis/hostReport';
import { persistState, report } from './hosts';

const GRUB = `# If you change this file, run 'update-grub' afterwards to update
# /boot/grub/grub.cfg.
# For full documentation of the options in this file, see:
#   info -f grub -n 'Simple configuration'

GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=\`lsb_release -i -s 2> /dev/null || echo Debian\`
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
GRUB_CMDLINE_LINUX=""
`;
const BLS = '/boot/loader/entries/0123abcd-5.14.0-427.el9.x86_64.conf';
const BLS_TEXT = `title Red Hat Enterprise Linux (5.14.0-427.el9.x86_64) 9.4
version 5.14.0-427.el9.x86_64
linux /vmlinuz-5.14.0-427.el9.x86_64
initrd /initramfs-5.14.0-427.el9.x86_64.img
options root=/dev/mapper/rhel-root ro crashkernel=1G-4G:192M rd.lvm.lv=rhel/root intel_iommu=on iommu=pt
`;

const ACS_ON = { acsCtl: 0x1d, iommuType: 'identity' } as const;
const absent = { kind: 'absent' } as const;

function unitState(files: PersistState['files'] = {}, packages: PersistState['packages'] = {}): PersistState {
  return { ...persistState('absent', { [ACS_UNIT]: absent, [ACS_WANTS]: absent, [ACS_BOOT_SCRIPT]: absent, ...files }), packages };
}

async function plan(state: PersistState, files: HostFiles = pcieHost(ACS_ON)): Promise<FixPlan> {
  return planFix({
    fixId: 'persist-acs',
    host: 'hgx',
    user: 'gdr',
    report: await report(files),
    unitState: ok(state),
    sudoMarker: 'gdr-doctor-sudo-feedc0ffee',
  });
}

describe('persist-acs', () => {
  it('the kernel parameter in /etc/default/grub, shown as a diff, then update-grub; effective at the next boot', async () => {
    const p = await plan(unitState({ [GRUB_DEFAULT]: { kind: 'regular', content: GRUB } }));
    assert.equal(p.status, 'ready', p.summary);
    assert.equal(p.persistVia, 'kernel-parameter');
    assert.equal(p.fileChange?.path, GRUB_DEFAULT);
    assert.match(p.fileChange?.diff ?? '', /-GRUB_CMDLINE_LINUX=""\n\+GRUB_CMDLINE_LINUX="pci=disable_acs_redir=pci:1000:c030"\n/);
    assert.match(p.steps[0].command, /U=\$\(tool update-grub\) \|\| exit 1/);
    assert.match(p.summary, /effective from the next boot/);
    assert.ok(p.notes.some((n) => n.includes('pci_disable_acs_redir')));
  });

  it('BLS entries and /etc/kernel/cmdline: each options line edited, no grub.cfg to remake', async () => {
    const p = await plan(
      unitState({
        [BLS]: { kind: 'regular', content: BLS_TEXT },
        '/etc/kernel/cmdline': { kind: 'regular', content: 'root=/dev/mapper/rhel-root ro\n' },
      }),
    );
    assert.equal(p.persistVia, 'kernel-parameter');
    assert.deepEqual([p.fileChange?.path, ...(p.otherFileChanges ?? []).map((c) => c.path)], [BLS, '/etc/kernel/cmdline']);
    assert.match(p.fileChange?.after ?? '', /^options root=\/dev\/mapper\/rhel-root .* iommu=pt pci=disable_acs_redir=pci:1000:c030$/m);
    assert.doesNotMatch(p.steps[0].command, /update-grub|grub2-mkconfig/);
  });

  it('falls back to the checked boot unit, saying why: an old kernel, a BLS entry with $kernelopts, no bootloader file', async () => {
    const old = await plan(unitState({ [GRUB_DEFAULT]: { kind: 'regular', content: GRUB } }), {
      ...pcieHost(ACS_ON),
      uname: '4.18.0-553.el8_10.x86_64\n',
    });
    assert.equal(old.persistVia, 'boot-unit');
    assert.ok(old.notes.some((n) => n.includes('kernel 4.18.0-553.el8_10.x86_64 predates pci=disable_acs_redir= (Linux 5.1)')));
    const grubenv = await plan(
      unitState({ [BLS]: { kind: 'regular', content: BLS_TEXT.replace(/^options .*$/m, 'options $kernelopts') } }),
    );
    assert.ok(grubenv.notes.some((n) => n.includes('has no plain "options" line (or takes it from grubenv $kernelopts)')));
    const none = await plan(unitState());
    assert.equal(none.persistVia, 'boot-unit');
    assert.equal(none.fileChange?.path, ACS_BOOT_SCRIPT);
    assert.equal(none.otherFileChanges?.[0].path, ACS_UNIT);
    assert.match(none.otherFileChanges?.[0].after ?? '', /^ExecStart=\/bin\/sh \/etc\/gdr-doctor\/acs-boot\.sh$/m);
    assert.doesNotMatch(none.otherFileChanges?.[0].after ?? '', /ExecStart=-/);
    assert.match(
      none.fileChange?.after ?? '',
      /^same 0000:19:00\.0 \/sys\/devices\/pci0000:15\/0000:15:01\.0\/0000:16:00\.0\/0000:17:01\.0\/0000:19:00\.0 10de:2330 \|\| ok=0$/m,
    );
    assert.match(none.steps[0].command, /sh "\$t" --check/);
  });

  it('nothing to do when the same unit, boot script and link are there', async () => {
    const first = await plan(unitState());
    const boot = first.fileChange?.after ?? '';
    const there = unitState({
      [ACS_UNIT]: { kind: 'regular', content: acsUnit() },
      [ACS_BOOT_SCRIPT]: { kind: 'regular', content: boot },
      [ACS_WANTS]: { kind: 'symlink' },
    });
    assert.equal((await plan(there)).status, 'nothing-to-do');
    assert.ok(boot.startsWith('#!/bin/sh\n'));
  });

  it("DGX OS's nvidia-acs-disable installed: refused, no competing unit or parameter", async () => {
    const p = await plan(unitState({}, { 'nvidia-acs-disable': 'installed', 'nv-iommu': 'installed' }));
    assert.deepEqual([p.status, p.steps], ['refused', []]);
    assert.match(p.summary, /^DGX OS's own package nvidia-acs-disable is installed \(nvidia-acs-disable, nv-iommu\)/);
  });

  it('names bridges of several models by their path from the root port', () => {
    const a = { bdf: '0000:17:01.0', path: '/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0', id: '1000:c030' };
    const b = { bdf: '0000:15:01.0', path: '/sys/devices/pci0000:15/0000:15:01.0', id: '8086:352a' };
    assert.equal(acsSelector([a, b]), '0000:15:01.0/00.0/01.0;0000:15:01.0');
    // GRUB reads ";" as a command separator: with only GRUB, the boot unit instead.
    assert.match(
      String(cmdlineEdit(unitState({ [GRUB_DEFAULT]: { kind: 'regular', content: GRUB } }), [a, b], { updateGrub: true })),
      /GRUB reads ";"/,
    );
  });
});

describe('the bootloader script, run by a real sh', () => {
  let root: string;
  const run = (script: string) =>
    spawnSync('/bin/sh', ['-c', script.split('/etc/').join(`${root}/etc/`).split('/boot/').join(`${root}/boot/`)], { encoding: 'utf8' });
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-cmdline-'));
    fs.mkdirSync(path.join(root, 'boot/loader/entries'), { recursive: true });
    fs.mkdirSync(path.join(root, 'etc/kernel'), { recursive: true });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes exactly the planned content, keeps the mode; a file changed since it was read: nothing changed', () => {
    const target = { bdf: '0000:17:01.0', path: '/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0', id: '1000:c030' };
    const kc = 'root=UUID=1 ro "quoted" $notavar \\back\n';
    const state = unitState({ [BLS]: { kind: 'regular', content: BLS_TEXT }, '/etc/kernel/cmdline': { kind: 'regular', content: kc } });
    const edit = cmdlineEdit(state, [target], { updateGrub: false });
    assert.ok(typeof edit !== 'string', String(edit));
    fs.writeFileSync(path.join(root, BLS), BLS_TEXT, { mode: 0o600 });
    fs.writeFileSync(path.join(root, 'etc/kernel/cmdline'), 'changed by someone else\n');
    const stale = run(cmdlineScript(edit));
    assert.equal(stale.status, 1);
    assert.match(stale.stderr, /cmdline changed since it was read: nothing changed/);
    assert.equal(fs.readFileSync(path.join(root, BLS), 'utf8'), BLS_TEXT);
    fs.writeFileSync(path.join(root, 'etc/kernel/cmdline'), kc);
    const r = run(cmdlineScript(edit));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(fs.readFileSync(path.join(root, BLS), 'utf8'), edit.changes[0].after);
    assert.equal(
      fs.readFileSync(path.join(root, 'etc/kernel/cmdline'), 'utf8'),
      'root=UUID=1 ro "quoted" $notavar \\back pci=disable_acs_redir=pci:1000:c030\n',
    );
    assert.equal(fs.statSync(path.join(root, BLS)).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(path.join(root, 'boot/loader/entries')), [path.basename(BLS)]);
  });
});
