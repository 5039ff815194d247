// NCCL's own GPU↔NIC verdicts, end to end: the built CLI diagnoses simulated hosts whose PCI tree lives
// in sysfs as on a real machine (test/lab/profiles/*/sysfs.json) and must answer what NCCL's source
// decides there (NVIDIA/nccl v2.30.7-1 src/graph/paths.cc ncclTopoComputePaths, ncclTopoCheckGdr;
// src/transport/net_ib/), for the release and NCCL_* environment the user names.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';

const RECORDS = '/tmp/gdr-doctor-lab-nccl-verdicts.records.json';

interface PairJson {
  gpu: string;
  nics: { device: string | null }[];
  link: string | null;
  ncclPath: string | null;
  proxyGpu: string | null;
  gdr: boolean;
  send?: boolean;
  receive?: boolean;
  reason: string;
  confirm: string;
  ncclAssumed: string;
}
interface FindingJson {
  id: string;
  severity: string;
  detail: string;
  evidence: string[];
  fixes: string[];
}
interface ReportJson {
  pairs: PairJson[];
  findings: FindingJson[];
  nccl: { assumed: string; topologySource: 'sysfs' | 'matrix' | null };
  facts: Record<string, { parsed: { ok: boolean; value: { rdma: unknown[]; nvidia: unknown[] } } }>;
}

let lab: Lab;

async function diagnose(host: string, ...nccl: string[]): Promise<ReportJson> {
  const r = await runCli(['diagnose', '-F', lab.sshConfigPath, host, '--json', ...nccl]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ReportJson;
}

function pair(report: ReportJson, gpu: string): PairJson {
  const p = report.pairs.find((x) => x.gpu === gpu);
  assert.ok(p, `no pair for ${gpu} in ${JSON.stringify(report.pairs.map((x) => x.gpu))}`);
  return p;
}

const ids = (report: ReportJson) => report.findings.map((f) => f.id);
const devices = (p: PairJson) => p.nics.map((n) => n.device);

describe('NCCL verdicts on simulated hosts with a PCI tree in sysfs', function () {
  this.timeout(120_000);

  before(async () => {
    assertLabCanRun();
    await cleanupStale(RECORDS);
    const hosts = [
      'grace-c2c',
      'gh200',
      'pxn-port-down',
      'pcie-no-nvlink',
      'peermem-unregistered',
      'ofed-after-driver',
      'doca-peermem',
      'healthy',
    ];
    lab = await startLab({ recordsPath: RECORDS, hosts: hosts.map((h) => ({ name: h, profile: h })) });
  });
  after(async () => lab?.stop());

  describe('GB200 tray: NICs on both Grace CPUs, every matrix cell SYS', () => {
    it('NCCL ≥ 2.27: each GPU gets the NICs of its own Grace over P2C, with GPUDirect RDMA', async () => {
      const report = await diagnose('grace-c2c');
      assert.equal(report.nccl.topologySource, 'sysfs');
      assert.equal(report.nccl.assumed, '2.30.7');
      // ncclTopoGetLocalNet spreads the GPUs of one Grace over its two ConnectX-7 (mirrored device number).
      const expected: Record<string, string[]> = {
        GPU0: ['mlx5_0', 'mlx5_1'],
        GPU1: ['mlx5_1', 'mlx5_0'],
        GPU2: ['mlx5_4', 'mlx5_5'],
        GPU3: ['mlx5_5', 'mlx5_4'],
      };
      for (const [gpu, nics] of Object.entries(expected)) {
        const p = pair(report, gpu);
        assert.deepEqual(
          [devices(p), p.link, p.ncclPath, p.proxyGpu, p.gdr, p.ncclAssumed],
          [nics, 'SYS', 'P2C', null, true, '2.30.7'],
          `${gpu}: ${p.reason}`,
        );
        assert.equal(p.send, undefined, 'sends and receives agree');
        assert.match(p.reason, /ncclTopoComputePaths/);
        assert.match(p.reason, /ncclTopoCheckGdr/);
        assert.match(p.confirm, /NCCL_DEBUG=INFO/);
      }
      assert.ok(!ids(report).includes('topo.nic-far'), ids(report).join(', '));
    });

    it('NCCL 2.25 has no P2C: the same NICs are PHB, beyond its PXB threshold, so GPUDirect RDMA is off', async () => {
      const report = await diagnose('grace-c2c', '--nccl', '2.25');
      assert.equal(report.nccl.assumed, '2.25');
      for (const gpu of ['GPU0', 'GPU1', 'GPU2', 'GPU3']) {
        const p = pair(report, gpu);
        assert.deepEqual([p.ncclPath, p.gdr, p.ncclAssumed], ['PHB', false, '2.25'], `${gpu}: ${p.reason}`);
        assert.match(p.reason, /PXB/);
      }
      assert.deepEqual(devices(pair(report, 'GPU2')), ['mlx5_4', 'mlx5_5'], 'still the NICs of its own Grace');
    });

    it('NCCL 2.26: off by default, on with NCCL_NET_GDR_C2C=1', async () => {
      const plain = await diagnose('grace-c2c', '--nccl', '2.26');
      const c2c = await diagnose('grace-c2c', '--nccl', '2.26', '--nccl-env', 'NCCL_NET_GDR_C2C=1');
      for (const gpu of ['GPU0', 'GPU3']) {
        assert.equal(pair(plain, gpu).gdr, false, pair(plain, gpu).reason);
        assert.equal(pair(c2c, gpu).gdr, true, pair(c2c, gpu).reason);
        assert.match(pair(c2c, gpu).reason, /NCCL_NET_GDR_C2C/);
      }
    });
  });

  it('GH200: the BlueField-3 ports in other PCI domains of the same Grace are P2C, GPUDirect RDMA on', async () => {
    const report = await diagnose('gh200');
    assert.equal(report.nccl.topologySource, 'sysfs');
    const p = pair(report, 'GPU0');
    assert.deepEqual([devices(p), p.link, p.ncclPath, p.gdr], [['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3'], 'NODE', 'P2C', true], p.reason);
  });

  describe('H100 HGX whose GPU1 NIC port is down', () => {
    it('GPU1 relays its sends through GPU0 (PXN) and keeps GPUDirect RDMA; the reason names the skipped mlx5_1', async () => {
      const report = await diagnose('pxn-port-down');
      assert.equal(report.nccl.topologySource, 'sysfs');
      const gpu1 = pair(report, 'GPU1');
      assert.deepEqual([devices(gpu1)[0], gpu1.ncclPath, gpu1.proxyGpu, gpu1.gdr], ['mlx5_0', 'PXN', 'GPU0', true], gpu1.reason);
      assert.ok(!devices(gpu1).includes('mlx5_1'), 'NCCL never uses a port that is not PORT_ACTIVE');
      assert.match(gpu1.reason, /mlx5_1/);
      assert.match(gpu1.reason, /ncclTopoComputePaths/);
      const gpu0 = pair(report, 'GPU0');
      assert.deepEqual([devices(gpu0), gpu0.ncclPath, gpu0.gdr], [['mlx5_0'], 'PIX', true]);
      for (const gpu of ['GPU2', 'GPU3', 'GPU4', 'GPU5', 'GPU6', 'GPU7'])
        assert.deepEqual([pair(report, gpu).ncclPath, pair(report, gpu).gdr], ['PIX', true], gpu);
    });

    it('with NCCL_PXN_DISABLE=1 GPU1 falls back to a NODE NIC, PHB, and loses GPUDirect RDMA', async () => {
      const report = await diagnose('pxn-port-down', '--nccl-env', 'NCCL_PXN_DISABLE=1');
      const gpu1 = pair(report, 'GPU1');
      assert.deepEqual(
        [devices(gpu1)[0], gpu1.link, gpu1.ncclPath, gpu1.proxyGpu, gpu1.gdr],
        ['mlx5_0', 'NODE', 'PHB', null, false],
        gpu1.reason,
      );
      assert.match(gpu1.reason, /mlx5_1/);
    });
  });

  it('PCIe box without NVLink, NCCL 2.18 with NCCL_NET_GDR_LEVEL=PHB: GPU4-7 do not send with GPUDirect RDMA; receives rest on the unread GPU model', async () => {
    const report = await diagnose('pcie-no-nvlink', '--nccl', '2.18', '--nccl-env', 'NCCL_NET_GDR_LEVEL=PHB');
    assert.equal(report.nccl.topologySource, 'matrix', 'no PCI tree in this profile');
    for (const gpu of ['GPU4', 'GPU5', 'GPU6', 'GPU7']) {
      const p = pair(report, gpu);
      // Receives: on if the GPU supports GPUDirect RDMA, and this profile records no GPU model (no nvidia-smi -q):
      // unknown, not yes (issue 21).
      assert.deepEqual([p.link, p.gdr, p.send, p.receive], ['NODE', false, false, null], `${gpu}: ${p.reason}`);
      assert.match(p.reason, /receives: GPUDirect RDMA on if the GPU supports it \(its model was not read\)/);
      assert.match(p.reason, /ncclTopoCheckGdr/);
    }
    for (const gpu of ['GPU0', 'GPU1', 'GPU2', 'GPU3']) {
      const p = pair(report, gpu);
      assert.deepEqual([p.link, p.gdr, p.send, p.receive], ['SYS', false, undefined, undefined], `${gpu}: ${p.reason}`);
    }
    assert.ok(ids(report).includes('topo.gdr-receive-only'), ids(report).join(', '));
  });

  describe('nvidia_peermem loaded without a memory_peers entry', () => {
    // Only mlx5_2 (PIX to GPU3, PXB to GPU1) so that the distance allows GPUDirect RDMA and the NIC side decides.
    const onlyMlx52 = ['--nccl-env', 'NCCL_IB_HCA=mlx5_2'];

    it('NCCL ≥ 2.23 counts /sys/module/nvidia_peermem/version: a warning, GPUDirect RDMA on', async () => {
      const report = await diagnose('peermem-unregistered', ...onlyMlx52);
      const finding = report.findings.find((f) => f.id === 'peermem.not-registered');
      assert.equal(finding?.severity, 'warning', ids(report).join(', '));
      // On as far as the module goes: the seed box's profile records no GPU model, so the verdict is unknown
      // (never yes) for that reason alone, and says so.
      for (const gpu of ['GPU3', 'GPU1']) {
        const p = pair(report, gpu);
        assert.equal(p.gdr, null, p.reason);
        assert.match(p.reason, /its model was not read/);
        assert.doesNotMatch(p.reason, /peer memory|nvidia_peermem is not/);
      }
      assert.equal(pair(report, 'GPU3').ncclPath, 'PIX');
    });

    it('NCCL 2.22.3 looks only at memory_peers: an error, GPUDirect RDMA off for want of NIC support', async () => {
      const report = await diagnose('peermem-unregistered', '--nccl', '2.22.3', ...onlyMlx52);
      const finding = report.findings.find((f) => f.id === 'peermem.not-registered');
      assert.equal(finding?.severity, 'error', ids(report).join(', '));
      const gpu3 = pair(report, 'GPU3');
      assert.equal(gpu3.gdr, false);
      assert.match(gpu3.reason, /ncclIbGdrSupport/);
    });
  });

  describe('OFED installed after the driver: nvidia_peermem built without OFED', () => {
    it('diagnose names the stub module from modinfo and offers no load-peermem', async () => {
      const report = await diagnose('ofed-after-driver');
      const mismatch = report.findings.find((f) => f.id === 'peermem.ofed-mismatch');
      assert.ok(mismatch, ids(report).join(', '));
      assert.equal(mismatch.severity, 'error');
      assert.match(mismatch.detail, /built without OFED/);
      assert.ok(
        mismatch.evidence.some((e) => /^modinfo nvidia_peermem: depends:\s*$/.test(e)),
        mismatch.evidence.join('\n'),
      );
      assert.deepEqual(
        report.findings.filter((f) => f.fixes.includes('load-peermem')).map((f) => f.id),
        [],
      );
    });

    it('gdr-doctor fix load-peermem refuses before running anything', async () => {
      const h = lab.host('ofed-after-driver');
      const before = h.calls().length;
      const r = await runCli(['fix', '-F', lab.sshConfigPath, 'ofed-after-driver', 'load-peermem', '--yes', '--json'], {
        GDR_DOCTOR_AUDIT_LOG: path.join(lab.dir, 'audit.log'),
      });
      assert.equal(r.status, 4, r.stdout + r.stderr);
      const { plan, result } = JSON.parse(r.stdout) as {
        plan: { status: string; summary: string; steps: unknown[]; findings: { id: string }[] };
        result: unknown;
      };
      assert.deepEqual([plan.status, plan.steps, plan.findings.map((f) => f.id), result], ['refused', [], ['peermem.ofed-mismatch'], null]);
      assert.match(plan.summary, /Invalid argument[\s\S]*built without OFED/);
      assert.deepEqual(
        h
          .calls()
          .slice(before)
          .filter((c) => c.cmd === 'modprobe'),
        [],
        'no modprobe ran',
      );
    });
  });

  describe('DOCA-OFED: nvidia_peermem built against ib_uverbs (depends: ib_uverbs,nvidia), not loaded', () => {
    it('diagnose calls it a real build that is not loaded, offers load-peermem, and the fix loads it end to end', async () => {
      const before = await diagnose('doca-peermem');
      assert.ok(!ids(before).includes('peermem.ofed-mismatch'), ids(before).join(', '));
      const notLoaded = before.findings.find((f) => f.id === 'peermem.not-loaded');
      assert.deepEqual([notLoaded?.severity, notLoaded?.fixes], ['error', ['load-peermem']]);
      const h = lab.host('doca-peermem');
      const r = await runCli(['fix', '-F', lab.sshConfigPath, 'doca-peermem', 'load-peermem', '--yes', '--json'], {
        GDR_DOCTOR_AUDIT_LOG: path.join(lab.dir, 'audit-doca.log'),
      });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      const { result } = JSON.parse(r.stdout) as { result: { status: string } };
      assert.equal(result.status, 'applied', r.stdout);
      assert.deepEqual(
        h
          .calls()
          .filter((c) => c.cmd === 'modprobe')
          .map((c) => [c.uid, c.args]),
        [[0, ['nvidia_peermem']]],
      );
      const after = await diagnose('doca-peermem');
      assert.deepEqual(
        after.findings.filter((f) => f.id.startsWith('peermem.') && f.severity === 'error').map((f) => f.id),
        [],
      );
      // The module now holds ib_uverbs, as on the real DOCA-OFED host of the lsmod fixture.
      type LsmodFact = { parsed: { value: { modules: { name: string; usedBy: string[] }[] } } };
      const lsmod = (after.facts as unknown as Record<string, LsmodFact>).lsmod;
      const uverbs = lsmod.parsed.value.modules.find((m) => m.name === 'ib_uverbs');
      assert.ok(uverbs?.usedBy.includes('nvidia_peermem'), JSON.stringify(lsmod.parsed.value.modules));
    });
  });

  it('a profile without a PCI tree shows no RDMA or NVIDIA device from sysfs: the test machine never leaks in', async () => {
    const report = await diagnose('healthy');
    const sysfs = report.facts['pci-sysfs'].parsed;
    assert.equal(sysfs.ok, true);
    assert.deepEqual([sysfs.value.rdma, sysfs.value.nvidia], [[], []]);
    assert.equal(report.nccl.topologySource, 'matrix');
  });
});
