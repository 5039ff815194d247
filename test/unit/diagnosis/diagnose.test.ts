// Whole-host diagnosis: a healthy host, ordering, the platform rules (IOMMU/ACS), failed probe
// commands, and the lab profiles' real recordings.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { constructedSysfs, pciSysfsText } from '../topology/nccl/constructedSysfs';
import { cmdline, commandNotFound, iommuGroups } from './constructedInputs';
import { fixture, hostReport, labFile } from './hostReport';
import { HEALTHY, NO_PEERMEM, ids, only, problems, without } from './hosts';

describe('diagnose()', () => {
  it('a healthy host gets no error or warning, and every GPU a GDR verdict', async () => {
    const d = diagnose(await hostReport(HEALTHY));
    assert.deepEqual(problems(d.findings), []);
    assert.equal(d.pairs.length, 8);
    assert.ok(d.pairs.every((p) => p.gdr));
    // dgx-a100 GPU0 row: "… PXB PXB SYS … 48-63,176-191 3"; NIC Legend NIC0: mlx5_0, NIC1: mlx5_1.
    assert.deepEqual(
      { nics: d.pairs[0].nics.map((n) => n.device), link: d.pairs[0].link, numa: d.pairs[0].numaNode, cpus: d.pairs[0].cpus },
      { nics: ['mlx5_0', 'mlx5_1'], link: 'PXB', numa: '3', cpus: '48-63,176-191' },
    );
    assert.match(d.pairs[0].reason, /^GPU0 → mlx5_0 over PXB .*NCCL 2\.30\.7: GPUDirect RDMA on \(PXB within the default threshold P2C/);
    assert.ok(!('NCCL_NET_GDR_LEVEL' in d.suggestedEnv.env));
  });

  it("every finding has the issue's shape, and errors come before warnings before info", async () => {
    const d = diagnose(
      await hostReport({
        ...NO_PEERMEM,
        cmdline: cmdline('intel_iommu=on'),
        'iommu-groups': iommuGroups(87),
        lscpu: commandNotFound('lscpu'),
      }),
    );
    const rank = { error: 0, warning: 1, info: 2 };
    const ranks = d.findings.map((f) => rank[f.severity]);
    assert.deepEqual(
      ranks,
      [...ranks].sort((a, b) => a - b),
    );
    assert.ok(d.findings.length >= 5);
    for (const f of d.findings) {
      assert.deepEqual(Object.keys(f).sort(), ['detail', 'evidence', 'fixes', 'id', 'severity', 'source', 'title']);
      assert.ok(f.evidence.length > 0 && f.evidence.every((e) => /^[^:]+: \S/.test(e)), `${f.id}: ${f.evidence.join(' | ')}`);
      assert.ok(f.source.length > 0 && f.title.length > 0 && f.detail.length > 0);
    }
  });

  it('IOMMU translating DMA: iommu.enabled (warning) and, with GPUs and NICs on one switch, pcie.acs-enabled', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, cmdline: cmdline('intel_iommu=on'), 'iommu-groups': iommuGroups(87) }));
    const iommu = only(d.findings, 'iommu.enabled');
    assert.equal(iommu.severity, 'warning');
    assert.deepEqual(iommu.evidence, [
      'cat /proc/cmdline: BOOT_IMAGE=/boot/vmlinuz root=/dev/sda2 ro intel_iommu=on',
      'ls /sys/kernel/iommu_groups: 87 groups',
    ]);
    assert.equal(only(d.findings, 'pcie.acs-enabled').severity, 'warning');
  });

  it('IOMMU in passthrough (iommu=pt): only info, ACS still flagged; no IOMMU groups: nothing', async () => {
    const pt = diagnose(await hostReport({ ...HEALTHY, cmdline: cmdline('intel_iommu=on iommu=pt'), 'iommu-groups': iommuGroups(87) }));
    assert.equal(only(pt.findings, 'iommu.enabled').severity, 'info');
    assert.ok(ids(pt.findings).includes('pcie.acs-enabled'));
    const off = diagnose(await hostReport({ ...HEALTHY, cmdline: cmdline('intel_iommu=on'), 'iommu-groups': iommuGroups(0) }));
    assert.ok(!ids(off.findings).includes('iommu.enabled'));
  });

  it('a diagnostic that could not run: probe.command-failed, warning when the diagnosis loses a verdict', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, lsmod: commandNotFound('lsmod'), lscpu: commandNotFound('lscpu') }));
    const failed = d.findings.filter((f) => f.id === 'probe.command-failed' && f.title.startsWith('Could not read'));
    assert.deepEqual(
      failed.map((f) => [f.severity, f.evidence[0]]),
      [
        ['warning', 'lsmod: (command not found (exit 127))'],
        ['info', 'lscpu: (command not found (exit 127))'],
      ],
    );
    assert.equal(failed[0].evidence[1], 'lsmod: sh: 1: lsmod: not found');
    // /sys/module still shows nvidia_peermem loaded, so the module rules stay quiet.
    assert.ok(!ids(d.findings).some((id) => id.startsWith('peermem.')));
  });

  it('without ibv_devinfo but with the ports read from sysfs, its failure is only info: no verdict is lost', async () => {
    const sysfs = pciSysfsText(
      constructedSysfs([], [{ name: 'mlx5_0', path: '/sys/devices/pci0000:20/0000:20:01.0/0000:21:00.0', ports: [{}] }]),
    );
    const missing = diagnose(await hostReport({ ...HEALTHY, ibv: commandNotFound('ibv_devinfo') }));
    const withSysfs = diagnose(await hostReport({ ...HEALTHY, ibv: commandNotFound('ibv_devinfo'), 'pci-sysfs': sysfs }));
    const severity = (d: typeof missing) =>
      d.findings.find((f) => f.id === 'probe.command-failed' && f.title.includes('ibv_devinfo'))?.severity;
    assert.deepEqual([severity(missing), severity(withSysfs)], ['warning', 'info']);
  });

  it("an unreadable output (a cut ibv_devinfo) is reported with the parser's line", async () => {
    const cut = fixture('ibv/mlx4-connectx3-roce-2port-device-ports.txt').split('\n').slice(0, 3).join('\n');
    const d = diagnose(await hostReport({ ...HEALTHY, ibv: cut }));
    const f = d.findings.find((x) => x.id === 'probe.command-failed' && x.title.includes('ibv_devinfo'));
    assert.equal(f?.severity, 'warning');
    assert.match(f?.evidence[0] ?? '', /^ibv_devinfo -v: \(unreadable output, line \d+: /);
  });

  it('outputs not collected are one finding naming them', async () => {
    const d = diagnose(await hostReport(without(HEALTHY, 'cmdline', 'iommu-groups')));
    const f = d.findings.filter((x) => x.id === 'probe.command-failed');
    assert.equal(f.length, 1);
    assert.equal(f[0].severity, 'info');
    assert.match(f[0].detail, /cmdline/);
    assert.ok(f[0].evidence.includes('ls /sys/kernel/iommu_groups: (not collected)'));
  });

  it('lab profile healthy (real recordings only): dma-buf seen from modinfo, GPU4-7 far, no error', async () => {
    const d = diagnose(
      await hostReport({
        topo: labFile('healthy', 'out/nvidia-smi_topo_-m.stdout'),
        lscpu: labFile('healthy', 'out/lscpu.stdout'),
        numactl: labFile('healthy', 'out/numactl_-H.stdout'),
        ofed: labFile('healthy', 'out/ofed%5Finfo_-s.stdout'),
        'modinfo-nvidia': labFile('healthy', 'modinfo/nvidia.txt'),
        'nvidia-version': labFile('healthy', 'files/proc/driver/nvidia/version'),
      }),
    );
    assert.ok(!d.findings.some((f) => f.severity === 'error'));
    assert.ok(
      only(d.findings, 'dmabuf.available').evidence.some((e) =>
        e.startsWith('cat /proc/driver/nvidia/version: NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  595.71.05'),
      ),
    );
    assert.match(only(d.findings, 'topo.nic-far').title, /^GPU4, GPU5, GPU6, GPU7/);
  });
});
