// disable-acs and persist-acs on the lab's HGX host as probe outputs (../diagnosis/pcieHost.ts):
// exactly the redirecting bridges of the GPU↔NIC paths, refusals where ACS must stay or turning it
// off is unsafe, and verification from lspci's reading, not from setpci's exit status.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { FixPlan, RemoteShell, ShellResult, applyFix, planFix } from '../../../src/core/fixes';
import { ACS_UNIT, ACS_WANTS } from '../../../src/core/fixes/acsBoot';
import { ok } from '../../../src/core/parsers/result';
import { fixture } from '../diagnosis/hostReport';
import { pcieHost } from '../diagnosis/pcieHost';
import { persistState, report } from './hosts';
import { joinedRegExp } from '../../support/joinedRegExp';

const MARKER = 'gdr-doctor-sudo-feedc0ffee';
const ACS_ON = { acsCtl: 0x1d, iommuType: 'identity' } as const;

async function plan(
  fixId: FixPlan['fixId'],
  files = pcieHost(ACS_ON),
  unit = ok(persistState('absent', { [ACS_UNIT]: { kind: 'absent' }, [ACS_WANTS]: { kind: 'absent' } })),
): Promise<FixPlan> {
  return planFix({ fixId, host: 'hgx', user: 'gdr', report: await report(files), unitState: unit, sudoMarker: MARKER });
}

describe('disable-acs', () => {
  it("covers every NIC at the GPU's best distance: a second NIC in GPU0's switch adds its port, and the plan lists the paths", async () => {
    const p = await plan('disable-acs', pcieHost({ ...ACS_ON, secondNic: true }));
    assert.equal(p.status, 'ready', p.summary);
    assert.equal(p.acs?.bridges.length, 17);
    assert.deepEqual(
      p.acs?.bridges.filter((b) => b.bdf.startsWith('0000:17:')).map((b) => [b.bdf, b.pairs]),
      [
        ['0000:17:01.0', ['GPU0↔mlx5_0', 'GPU0↔mlx5_8']],
        ['0000:17:02.0', ['GPU0↔mlx5_0']],
        ['0000:17:03.0', ['GPU0↔mlx5_8']],
      ],
    );
    assert.ok(p.notes.some((n) => n.startsWith('GPU↔NIC paths covered: GPU0↔mlx5_0, GPU0↔mlx5_8, GPU1↔mlx5_1,')));
  });

  it('plans setpci on exactly the 16 redirecting switch ports, keeps their values for undo, says it is lost at reboot', async () => {
    const p = await plan('disable-acs');
    assert.equal(p.status, 'ready', p.summary);
    assert.equal(p.privilege, 'sudo');
    assert.equal(p.acs?.bridges.length, 16);
    assert.deepEqual(p.acs?.bridges[0], {
      bdf: '0000:17:01.0',
      description: 'PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)',
      before: '001d',
      pairs: ['GPU0↔mlx5_0'],
      target: { bdf: '0000:17:01.0', path: '/sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0', id: '1000:c030' },
    });
    assert.match(p.steps[0].command, /^LC_ALL=C sudo -n \/bin\/sh -c '.*for b in 0000:17:01\.0 0000:17:02\.0 0000:39:01\.0 /s);
    assert.match(p.steps[0].command, /"\$S" -s "\$b" ECAP_ACS\+0x6\.w=0000/);
    assert.ok(p.notes.some((n) => /Lost at the next reboot/.test(n)));
    assert.ok(p.notes.some((n) => n.includes('setpci -s 0000:17:01.0 ECAP_ACS+0x6.w=001d')));
  });

  it('nothing to do where ACS redirects nothing', async () => {
    assert.equal((await plan('disable-acs', pcieHost({ acsCtl: 0, iommuType: 'identity' }))).status, 'nothing-to-do');
  });

  it('refused in a VM, on a host with a VFIO group, and while the IOMMU translates', async () => {
    const vm = await plan('disable-acs', {
      ...pcieHost(ACS_ON),
      lscpu: fixture('lscpu/kvm-q35-amd-epyc-9654-44vcpu-vm-hypervisor-kvm.txt'),
    });
    assert.deepEqual([vm.status, vm.steps], ['refused', []]);
    assert.match(vm.summary, /^This host is a virtual machine \(lscpu: Hypervisor vendor: KVM\): ACS keeps/);
    const vfio = await plan('persist-acs', pcieHost({ ...ACS_ON, vfioGroup: 7 }));
    assert.match(vfio.summary, /passes devices through to virtual machines/);
    const dma = await plan('disable-acs', pcieHost({ acsCtl: 0x1d, iommuType: 'DMA' }));
    assert.match(
      dma.summary,
      joinedRegExp([
        /^disable-acs needs IOMMU passthrough to be shown, and it is not: the IOMMU translates DMA for the GPUs and NICs/,
        / \(IOMMU groups 3, 5, .*Boot with intel_iommu=on iommu=pt \(passthrough, not the IOMMU off\)/,
      ]),
    );
  });

  it('a kernel before 5.11 (no IOMMU group types) with intel_iommu=on: refused, saying what is missing; with iommu=pt: ready, saying so', async () => {
    const old = await plan('disable-acs', pcieHost({ acsCtl: 0x1d, iommuType: '', cmdline: 'intel_iommu=on' }));
    assert.deepEqual([old.status, old.steps], ['refused', []]);
    assert.match(old.summary, /its group types cannot be read \(Linux before 5\.11 has no \/sys\/kernel\/iommu_groups\/N\/type\)/);
    const persist = await plan('persist-acs', pcieHost({ acsCtl: 0x1d, iommuType: '', cmdline: 'intel_iommu=on' }));
    assert.equal(persist.status, 'refused');
    // The diagnosis no longer offers the fixes there.
    const finding = diagnose(await report(pcieHost({ acsCtl: 0x1d, iommuType: '', cmdline: 'intel_iommu=on' }))).findings.find(
      (f) => f.id === 'pcie.acs-enabled',
    );
    assert.deepEqual(finding?.fixes, []);
    assert.match(finding?.detail ?? '', /IOMMU passthrough is not shown \(the IOMMU is active \(48 groups\)/);
    const pt = await plan('disable-acs', pcieHost({ acsCtl: 0x1d, iommuType: '', cmdline: 'intel_iommu=on iommu=pt' }));
    assert.equal(pt.status, 'ready', pt.summary);
    assert.ok(pt.notes.includes('IOMMU passthrough: the kernel command line has iommu=pt (the IOMMU group types cannot be read).'));
    const none = await plan('disable-acs', pcieHost({ acsCtl: 0x1d }));
    assert.ok(none.notes.includes('IOMMU passthrough: no IOMMU is active (/sys/kernel/iommu_groups has no group).'));
    const identity = await plan('disable-acs');
    assert.ok(identity.notes.includes('IOMMU passthrough: the IOMMU groups of the GPUs and NICs are of type identity (passthrough).'));
  });

  it('with sudo asking a password (ACS unread): every bridge of the paths, read first by the script', async () => {
    const p = await plan('disable-acs', pcieHost({ acsUnread: true, iommuType: 'identity' }));
    assert.deepEqual([p.status, p.privilege, p.acs?.bridges.length, p.acs?.bridges[0].before], ['ready', 'sudo-password', 16, null]);
    assert.ok(p.notes.some((n) => n.includes('the current ACSCtl of these bridges is not known')));
  });

  it('verifies from lspci as root: applied when ACSCtl reads all off, failed when a port still redirects', async () => {
    const p = await plan('disable-acs');
    const off = pcieHost({ acsCtl: 0 })['pci-acs'] as string;
    const on = pcieHost(ACS_ON)['pci-acs'] as string;
    const applied = await applyFix(p, options(fakeShell([{}, { stdout: Buffer.from(off) }])));
    assert.equal(applied.status, 'applied', applied.message);
    assert.equal(applied.verification[0], 'lspci -vvv -s 0000:17:01.0: ACSCtl all off');
    const still = await applyFix(p, options(fakeShell([{}, { stdout: Buffer.from(on) }])));
    assert.equal(still.status, 'failed');
    assert.match(still.message, /^ACS still redirects peer traffic on 0000:17:01\.0, 0000:17:02\.0/);
    // A bridge lspci no longer lists is gone, not "without ACS": the fix fails.
    const gone = off.replace(/== 0000:17:02\.0\n(?:(?!== ).*\n)*/, '== 0000:17:02.0\n');
    const vanished = await applyFix(p, options(fakeShell([{}, { stdout: Buffer.from(gone) }])));
    assert.equal(vanished.status, 'failed');
    assert.match(vanished.message, /^lspci no longer finds 0000:17:02\.0: the bridge is gone/);
  });

  it('checks each bridge and the processes holding devices first; stopped by a holder: refused with the list, nothing verified', async () => {
    const p = await plan('disable-acs');
    assert.match(
      p.steps[0].command,
      /same 0000:17:01\.0 \/sys\/devices\/pci0000:15\/0000:15:01\.0\/0000:16:00\.0\/0000:17:01\.0 1000:c030/,
    );
    assert.match(p.steps[0].command, /S=\$\(tool setpci\) \|\| exit 1/);
    assert.match(p.steps[0].command, /FORCE=0\nholders \|\| exit 75/);
    assert.ok(p.notes.some((n) => n.startsWith('Right before it writes, the script lists (as root) the processes holding')));
    const out = 'gdr-doctor-holder\t4242\tjob\tpython3\t/dev/nvidia0\ngdr-doctor-holder\t4242\tjob\tpython3\t/dev/infiniband/uverbs0\n';
    const stopped = await applyFix(p, options(fakeShell([{ exitCode: 75, stdout: Buffer.from(out) }])));
    assert.equal(stopped.status, 'refused');
    assert.deepEqual(stopped.holders, [
      { pid: 4242, command: 'python3', devices: ['/dev/nvidia0', '/dev/infiniband/uverbs0'], daemon: false },
    ]);
    assert.match(
      stopped.message,
      /^1 processes on hgx hold the GPUs or RDMA devices: 4242 python3 \(\/dev\/nvidia0, \/dev\/infiniband\/uverbs0\)\. Nothing was changed/,
    );
    assert.equal(stopped.verification.length, 0);
    const forced = await planFix({
      fixId: 'disable-acs',
      host: 'hgx',
      user: 'gdr',
      report: await report(pcieHost(ACS_ON)),
      sudoMarker: MARKER,
      force: true,
    });
    assert.match(forced.steps[0].command, /FORCE=1\nholders/);
  });
});

function fakeShell(replies: Partial<ShellResult>[]): RemoteShell {
  return {
    run: async () => ({
      exitCode: 0,
      stdout: Buffer.alloc(0),
      stderr: Buffer.alloc(0),
      connectionLost: false,
      timedOut: false,
      ...(replies.shift() ?? {}),
    }),
  };
}

function options(shell: RemoteShell) {
  return {
    shell,
    sudoMarker: MARKER,
    sudoPassword: async () => null,
    reprobe: () => report(pcieHost()),
    rereadState: async () => ok(persistState('directory')),
  };
}
