// The PCIe rules on the lab's HGX host as probe outputs (pcieHost.ts): ACS read per bridge, the
// IOMMU by group type, degraded links, RoCE GIDs, VMs.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { acsMarks } from '../../../src/core/diagnosis/acs';
import { virtState } from '../../../src/core/diagnosis/virt';
import { hostDrawing } from '../../../src/core/diagnosis/hostTopology';
import { topologyData } from '../../../src/vscode/topology/topologyData';
import { parseNcclVersion } from '../../../src/core/topology/nccl/version';
import { fixture, hostReport } from './hostReport';
import { HEALTHY, ids, only, problems } from './hosts';
import { TREE_GPUS, pcieHost, profileGids, smiQForTree } from './pcieHost';

const HEALTHY_SMI = HEALTHY['smi-q'];

const DSPS = ['0000:17:01.0', '0000:17:02.0'];

describe('PCIe fabric rules (lab host hgx-acs)', () => {
  it("ACS on (Linux with an IOMMU): pcie.acs-enabled names each pair's two switch ports, with the quick fixes", async () => {
    const report = await hostReport(pcieHost({ acsCtl: 0x1d, iommuType: 'identity' }));
    const d = diagnose(report);
    const f = only(d.findings, 'pcie.acs-enabled');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.fixes, ['disable-acs', 'persist-acs']);
    assert.match(f.title, /on 16 bridges/);
    assert.match(f.detail, /GPU0↔mlx5_0 via 0000:17:01\.0, 0000:17:02\.0; GPU1↔mlx5_1 via 0000:39:01\.0, 0000:39:02\.0/);
    assert.equal(
      f.evidence[0],
      'lspci -vvv -s 0000:17:01.0: ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-',
    );
    assert.equal(only(d.findings, 'iommu.enabled').severity, 'info');
    const marks = acsMarks(report, d.pairs, virtState(report));
    assert.deepEqual(
      marks.slice(0, 2).map((m) => [m.bridge, m.label]),
      DSPS.map((b) => [b, 'ACS']),
    );
    // The topology panel's graph marks the switch that holds those ports.
    const drawing = hostDrawing(report);
    const data = topologyData({
      title: 'hgx-acs',
      source: 'test',
      topology: drawing!.topology,
      pairs: d.pairs,
      tree: drawing!.tree,
      bridgeMarks: marks,
    });
    const marked = data.graph.tree?.nodes.filter((n) => n.bridges.some((b) => DSPS.includes(b))) ?? [];
    assert.ok(marked.length > 0, 'a graph node stands for the marked bridges');
    assert.deepEqual(
      data.graph.tree?.marks.filter((m) => DSPS.includes(m.bridge)).map((m) => m.label),
      ['ACS', 'ACS'],
    );
  });

  it('ACS off, or a root port redirecting outside every GPU↔NIC path: no finding', async () => {
    assert.ok(!ids(diagnose(await hostReport(pcieHost({ acsCtl: 0 }))).findings).includes('pcie.acs-enabled'));
  });

  it('sudo needs a password: pcie.acs-unread names the bridges and the one command to run', async () => {
    const f = only(diagnose(await hostReport(pcieHost({ acsUnread: true, iommuType: 'identity' }))).findings, 'pcie.acs-unread');
    assert.match(f.detail, /sudo -n did not run it \(sudo: a password is required\)/);
    assert.match(
      f.detail,
      /for b in 0000:17:01\.0 0000:17:02\.0 0000:39:01\.0 .* do sudo lspci -vvv -s \$b \| grep -E '\^\[0-9a-f\]\|ACSCtl'; done/,
    );
  });

  it("IOMMU translating the GPUs' groups (DMA-FQ): a warning with the Intel boot parameters", async () => {
    const f = only(diagnose(await hostReport(pcieHost({ iommuType: 'DMA-FQ' }))).findings, 'iommu.enabled');
    assert.equal(f.severity, 'warning');
    assert.match(f.detail, /boot with intel_iommu=on iommu=pt/);
    assert.match(f.evidence.find((e) => e.startsWith('/sys/kernel/iommu_groups/')) ?? '', /: DMA-FQ \(0000:/);
  });

  it('a GPU at x8 of x16: pcie.link-degraded (warning, whatever the load) names the link and both ends', async () => {
    const x8 = only(
      diagnose(await hostReport(pcieHost({ patch: { '0000:3b:00.0': { current_link_width: '8' } } }))).findings,
      'pcie.link-degraded',
    );
    assert.deepEqual([x8.severity, x8.title], ['warning', 'PCIe link trained below capability: GPU1']);
    assert.match(x8.detail, /^GPU1 0000:3b:00\.0 ↔ 0000:39:01\.0: x8 of x16\./);
    assert.deepEqual(x8.evidence, [
      '/sys/bus/pci/devices/0000:3b:00.0: current_link_width 8 (max 16), current_link_speed 32.0 GT/s PCIe (max 32.0 GT/s PCIe)',
      '/sys/bus/pci/devices/0000:39:01.0: current_link_width 16 (max 16), current_link_speed 32.0 GT/s PCIe (max 32.0 GT/s PCIe)',
    ]);
  });

  it('a NIC at 16 of 32 GT/s under a Gen5 port: a warning (no GPU below it to be idle)', async () => {
    const patch = { '0000:1a:00.0': { current_link_speed: '16.0 GT/s PCIe' }, '0000:17:02.0': { current_link_speed: '16.0 GT/s PCIe' } };
    const nic = only(diagnose(await hostReport(pcieHost({ patch }))).findings, 'pcie.link-degraded');
    assert.equal(nic.severity, 'warning');
    assert.match(nic.detail, /^mlx5_0 0000:1a:00\.0 ↔ 0000:17:02\.0: 16\.0 GT\/s PCIe of 32\.0 GT\/s PCIe\./);
  });

  it('an idle HGX (GPUs and their ports at 2.5 GT/s, Gen3/Gen4 NICs under Gen5 ports): no warning, the GPUs as info', async () => {
    const patch: Record<string, Record<string, string>> = {};
    const gen = (g: string) => ({ current_link_speed: g, max_link_speed: g });
    TREE_GPUS.forEach((gpu, i) => {
      const dsp = `${gpu.slice(0, 5)}${(parseInt(gpu.slice(5, 7), 16) - 2).toString(16).padStart(2, '0')}:01.0`;
      const nic = `${gpu.slice(0, 5)}${(parseInt(gpu.slice(5, 7), 16) + 1).toString(16).padStart(2, '0')}:00.0`;
      const nicPort = `${dsp.slice(0, 11)}2.0`;
      patch[gpu] = { current_link_speed: '2.5 GT/s PCIe' };
      patch[dsp] = { current_link_speed: '2.5 GT/s PCIe' };
      patch[nic] = gen(i % 2 === 0 ? '8.0 GT/s PCIe' : '16.0 GT/s PCIe');
      patch[nicPort] = { current_link_speed: i % 2 === 0 ? '8.0 GT/s PCIe' : '16.0 GT/s PCIe' };
    });
    for (const smi of [HEALTHY_SMI, smiQForTree()]) {
      const d = diagnose(await hostReport({ ...pcieHost({ patch }), 'smi-q': smi }));
      assert.deepEqual(problems(d.findings), []);
      const idle = only(d.findings, 'pcie.link-degraded');
      assert.equal(idle.severity, 'info');
      assert.equal(
        idle.title,
        'GPU PCIe link below its top speed (likely idle power saving): GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7',
      );
    }
    // The same links while GPU2 is busy (utilization 87 %): its link is degraded, the idle ones stay information.
    const busy = diagnose(await hostReport({ ...pcieHost({ patch }), 'smi-q': smiQForTree({ 2: 87 }) })).findings;
    const warn = busy.find((f) => f.id === 'pcie.link-degraded' && f.severity === 'warning');
    assert.equal(warn?.title, 'PCIe link trained below capability: GPU2');
    assert.match(warn?.detail ?? '', /^GPU2 0000:4c:00\.0 ↔ 0000:4a:01\.0: 2\.5 GT\/s PCIe of 32\.0 GT\/s PCIe \(GPU busy\)\./);
  });

  it('RoCE ports with only link-local GIDs: roce.no-v2-gid', async () => {
    const linkLocal = Object.fromEntries(Object.entries(profileGids).map(([d, ports]) => [d, { 1: ports['1'].slice(0, 2) }]));
    const f = only(diagnose(await hostReport(pcieHost({ gids: linkLocal }))).findings, 'roce.no-v2-gid');
    assert.match(f.detail, /mlx5_0 port 1: only link-local GIDs \(0, 1\): no IP address on ens3np0/);
  });

  it('NCCL before 2.21 would use GID 0: roce.gid-index says NCCL_IB_GID_INDEX=3; 2.21 and later pick it themselves', async () => {
    const report = await hostReport(pcieHost());
    const old = only(diagnose(report, { version: parseNcclVersion('2.20.5')!, env: {} }).findings, 'roce.gid-index');
    assert.match(old.title, /set NCCL_IB_GID_INDEX=3$/);
    assert.match(old.detail, /NCCL picks GID 0 \(link-local, RoCE v1\)/);
    assert.ok(!ids(diagnose(report).findings).includes('roce.gid-index'));
    assert.ok(
      !ids(diagnose(report, { version: parseNcclVersion('2.20.5')!, env: { NCCL_IB_GID_INDEX: '3' } }).findings).includes('roce.gid-index'),
    );
  });

  it('a KVM guest: platform.virtual-machine; ACS that redirects is info, without a fix', async () => {
    const d = diagnose(
      await hostReport({ ...pcieHost({ acsCtl: 0x1d }), lscpu: fixture('lscpu/kvm-q35-amd-epyc-9654-44vcpu-vm-hypervisor-kvm.txt') }),
    );
    assert.match(only(d.findings, 'platform.virtual-machine').detail, /lscpu: Hypervisor vendor: KVM.*NCCL_TOPO_FILE/);
    const acs = only(d.findings, 'pcie.acs-enabled');
    assert.deepEqual([acs.severity, acs.fixes], ['info', []]);
  });

  it('a host passing a device to a VM (an IOMMU group held by VFIO): ACS is required, no fix', async () => {
    const acs = only(
      diagnose(await hostReport(pcieHost({ acsCtl: 0x1d, iommuType: 'identity', vfioGroup: 3 }))).findings,
      'pcie.acs-enabled',
    );
    assert.match(acs.detail, /passes devices through to virtual machines \(\/dev\/vfio: IOMMU group 3 held by VFIO/);
    assert.deepEqual(acs.fixes, []);
  });
});
