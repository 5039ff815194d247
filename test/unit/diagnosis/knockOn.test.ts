// Knock-on findings (src/core/diagnosis/knockOn.ts): once a finding rules GPUDirect RDMA out, the
// diagnostics that could not be read and could change nothing under it are listed under it, not
// beside it. On real recordings: a whole machine without GPUs (test/probes), and hosts assembled
// from real outputs of a GPU node whose driver is not running and of one without an RDMA device.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Finding, diagnose } from '../../../src/core/diagnosis';
import { blockerOf, mootUnder, nestKnockOns } from '../../../src/core/diagnosis/knockOn';
import { offlineRunner } from '../../../src/core/transport/saved';
import { runProbe } from '../../../src/core/probe/runProbe';
import { REPO_ROOT } from '../../support/paths';
import { commandNotFound } from './constructedInputs';
import { fixture, hostReport } from './hostReport';
import { HEALTHY, ids } from './hosts';

const PROBES = path.join(REPO_ROOT, 'test/probes');

const titles = (findings: readonly Finding[] | undefined) => (findings ?? []).map((f) => f.title);

describe('diagnosis: knock-on findings under their cause', () => {
  it('a real machine without GPUs: gpu.none alone at the top, the unreadable diagnostics under it', async () => {
    const report = await runProbe(offlineRunner(path.join(PROBES, 'debian12-vm-no-gpu')), { host: 'debian12-vm' });
    const d = diagnose(report);
    assert.deepEqual(ids(d.findings), ['gpu.none']);
    const [cause] = d.findings;
    assert.deepEqual(titles(cause.children), [
      'Could not read `numactl -H`: command not found (exit 127)',
      'Could not read `lsmod`: command not found (exit 127)',
      'Could not read `modinfo nvidia_peermem`: command not found (exit 127)',
      'Could not read `modinfo nv_peer_mem`: command not found (exit 127)',
      'Could not read `modinfo nvidia`: command not found (exit 127)',
      'Could not read `ibv_devinfo -v`: command not found (exit 127)',
      'Could not read `cat /proc/driver/nvidia/version`: exit 1',
      // /proc/cmdline was left out of the recording (test/probes/SOURCES.md), and the probe then had no
      // ACS, DMI or NCCL configuration read (nccl.conf, topology file, network plugins, fi_info): not
      // collected, and moot too.
      '8 diagnostics were not collected',
    ]);
    for (const child of cause.children ?? []) {
      assert.equal(child.id, 'probe.command-failed');
      assert.equal(child.causedBy, 'gpu.none');
      assert.equal(child.severity, 'info', child.title);
      assert.match(child.detail, /It changes nothing here: without an NVIDIA GPU and driver.*\(gpu\.none\)/);
    }
    // The evidence stays what the host printed.
    assert.ok(cause.children?.[1].evidence.includes('lsmod: sh: 1: lsmod: not found'), cause.children?.[1].evidence.join('\n'));
  });

  it('a GPU node whose driver is not running: the /proc file it would have made is a knock-on', async () => {
    const down = { stdout: fixture('gpus/driver-not-loaded-couldnt-communicate.txt'), rc: 9 };
    const d = diagnose(
      await hostReport({
        ...HEALTHY,
        topo: down,
        gpus: down,
        'smi-q': down,
        'memory-peers': '',
        'sys-module-peermem': '',
        'nvidia-version': { stdout: '', stderr: 'cat: /proc/driver/nvidia/version: No such file or directory\n', rc: 1 },
      }),
    );
    assert.deepEqual(ids(d.findings), ['gpu.none']);
    assert.equal(d.findings[0].title, 'The NVIDIA driver is not running');
    // The preset saves no gpus, modinfo nvidia_peermem, sudo -n, sysfs, lspci (ACS), NCCL configuration
    // (nccl.conf, topology file, plugins, fi_info) or DMI output: moot as well.
    assert.deepEqual(titles(d.findings[0].children), [
      'Could not read `cat /proc/driver/nvidia/version`: exit 1',
      '10 diagnostics were not collected',
    ]);
  });

  it('a host without an RDMA device: what only peer memory and locality need goes under rdma.none', async () => {
    const d = diagnose(
      await hostReport({
        ...HEALTHY,
        topo: fixture('topo/tesla-p4-single-gpu-numa-na.txt'),
        ibv: fixture('ibv/no-ib-devices-found-libibverbs-warnings.txt'),
        'smi-q': fixture('smi-q/t4-1gpu-vm-passthrough-bar1-256mib-driver530.txt'),
        numactl: commandNotFound('numactl'),
        lsmod: commandNotFound('lsmod'),
      }),
    );
    const rdma = d.findings.find((f) => f.id === 'rdma.none');
    assert.ok(rdma, ids(d.findings).join(', '));
    assert.deepEqual(titles(rdma.children), [
      'Could not read `numactl -H`: command not found (exit 127)',
      'Could not read `lsmod`: command not found (exit 127)',
    ]);
    // Not collected by the preset: gpus and the sysfs PCI tree could still show a GPU or an RDMA device,
    // so that finding stays at the top (the rule looks at every diagnostic it names).
    const rest = d.findings.filter((f) => f.id === 'probe.command-failed');
    assert.deepEqual(titles(rest), ['12 diagnostics were not collected']);
    assert.match(
      rest[0].detail,
      /gpus, modinfo-nvidia-peermem, nvidia-version, sudo-n, pci-sysfs, pci-acs, nccl-conf, nccl-topo, nccl-net-plugin, fi-info, roce-qos, dmi\.$/,
    );
  });

  it('without a blocking finding a failed diagnostic stays a finding of its own, as before', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, lsmod: commandNotFound('lsmod') }));
    const lsmod = d.findings.find((f) => f.id === 'probe.command-failed');
    assert.equal(lsmod?.severity, 'warning');
    assert.equal(lsmod?.causedBy, undefined);
    assert.ok(d.findings.every((f) => f.children === undefined));
  });

  describe('the rule: a failure is a knock-on when every check its diagnostic feeds is moot', () => {
    const gpuNone = blockerOf([{ id: 'gpu.none' } as Finding]);
    const rdmaNone = blockerOf([{ id: 'rdma.none' } as Finding]);
    const unsupported = blockerOf([{ id: 'gpu.no-gdr-support' } as Finding]);

    it('without a GPU nothing else can change the answer', () => {
      for (const id of ['topo', 'ibv', 'pci-sysfs', 'lsmod', 'iommu-groups', 'os-release']) assert.ok(mootUnder(gpuNone, [id]), id);
    });

    it('without an RDMA device the GPU checks and the NIC list still stand', () => {
      for (const id of ['topo', 'gpus', 'smi-q', 'ibv', 'pci-sysfs']) assert.ok(!mootUnder(rdmaNone, [id]), id);
      for (const id of ['lsmod', 'numactl', 'lscpu', 'modinfo-nvidia', 'cmdline']) assert.ok(mootUnder(rdmaNone, [id]), id);
    });

    it('with GPUs that cannot do GPUDirect RDMA the GPU list still stands, the NIC side does not', () => {
      for (const id of ['gpus', 'smi-q', 'topo']) assert.ok(!mootUnder(unsupported, [id]), id);
      for (const id of ['ibv', 'pci-sysfs', 'lsmod']) assert.ok(mootUnder(unsupported, [id]), id);
    });

    it('gpu.none wins over rdma.none when both hold; no blocker, no knock-on', () => {
      assert.equal(blockerOf([{ id: 'rdma.none' } as Finding, { id: 'gpu.none' } as Finding])?.id, 'gpu.none');
      assert.equal(mootUnder(undefined, ['lsmod']), false);
    });

    it('nests under the first finding with the cause id, and leaves an orphan at the top', () => {
      const f = (id: string, causedBy?: string) =>
        ({ id, severity: 'info', title: id, detail: '', evidence: [], fixes: [], source: '', causedBy }) as Finding;
      const nested = nestKnockOns([f('gpu.none'), f('a', 'gpu.none'), f('b', 'rdma.none'), f('c', 'gpu.none')]);
      assert.deepEqual(
        nested.map((n) => [n.id, (n.children ?? []).map((c) => c.id)]),
        [
          ['gpu.none', ['a', 'c']],
          ['b', []],
        ],
      );
    });
  });
});
