// NCCL's own configuration on simulated hosts, end to end through the built CLI: an /etc/nccl.conf that sets
// NCCL_NET_GDR_LEVEL for every job, and a VM image's /var/run/nvidia-topologyd/virtualTopology.xml that NCCL
// loads instead of the guest's emulated PCI tree (NVIDIA/nccl v2.30.7-1 src/misc/param.cc initEnv,
// src/graph/topo.cc ncclTopoGetSystem); and an EFA host whose network NCCL reaches through aws-ofi-nccl
// (src/plugin/net.cc). Profiles: test/lab/profiles/README.md.
import * as assert from 'node:assert/strict';
import { runCli } from '../support/cli';
import { Lab, startTestLab } from '../lab/lab';

const RECORDS = '/tmp/gdr-doctor-lab-nccl-config.records.json';

interface ReportJson {
  pairs: {
    gpu: string;
    nics: { device: string | null }[];
    ncclPath: string | null;
    gdr: boolean | null;
    network: string;
    reason: string;
  }[];
  findings: { id: string; severity: string; evidence: string[] }[];
  nccl: {
    env: Record<string, string>;
    envFrom: Record<string, { from: string; line: number | null }>;
    topologySource: string | null;
    topologyFile: { path: string; state: string } | null;
  };
}

let lab: Lab;

async function diagnose(host: string, ...args: string[]): Promise<ReportJson> {
  const r = await runCli(['diagnose', '-F', lab.sshConfigPath, host, '--json', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as ReportJson;
}

describe("NCCL's configuration on the host (nccl.conf, virtual topology)", function () {
  this.timeout(120_000);

  before(async () => {
    lab = await startTestLab({
      recordsPath: RECORDS,
      hosts: ['nccl-conf-phb', 'vm-h200-topo', 'healthy', 'efa-p5'].map((h) => ({ name: h, profile: h })),
    });
  });
  after(async () => lab?.stop());

  it('/etc/nccl.conf NCCL_NET_GDR_LEVEL=PHB: GPU0-3 (NODE to their NIC) get GPUDirect RDMA, and the verdict says which file set it', async () => {
    const plain = await diagnose('healthy');
    const conf = await diagnose('nccl-conf-phb');
    assert.deepEqual(conf.nccl.env, { NCCL_NET_GDR_LEVEL: 'PHB' });
    assert.deepEqual(conf.nccl.envFrom.NCCL_NET_GDR_LEVEL, { from: '/etc/nccl.conf', line: 3 });
    for (const gpu of ['GPU0', 'GPU1', 'GPU2', 'GPU3']) {
      const before = plain.pairs.find((p) => p.gpu === gpu);
      const after = conf.pairs.find((p) => p.gpu === gpu);
      assert.deepEqual([before?.ncclPath, before?.gdr, after?.ncclPath, after?.gdr], ['PHB', false, 'PHB', true], after?.reason);
      assert.match(after?.reason ?? '', /NCCL_NET_GDR_LEVEL=PHB \(\/etc\/nccl\.conf:3\)/);
    }
    // The job's own environment still wins over the file.
    const job = await diagnose('nccl-conf-phb', '--nccl-env', 'NCCL_NET_GDR_LEVEL=PXB');
    assert.deepEqual([job.nccl.envFrom.NCCL_NET_GDR_LEVEL.from, job.pairs[0].gdr], ['environment', false]);
  });

  it('the CLI report names the file beside the setting', async () => {
    const r = await runCli(['diagnose', '-F', lab.sshConfigPath, 'nccl-conf-phb']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /GPU↔NIC verdicts for NCCL 2\.30\.7 with NCCL_NET_GDR_LEVEL=PHB \(\/etc\/nccl\.conf:3\)/);
  });

  it("a VM with a virtual topology: NCCL's answer follows the file (PIX per GPU and NIC), not the emulated tree (PHB)", async () => {
    const vm = await diagnose('vm-h200-topo');
    assert.equal(vm.nccl.topologySource, 'topo-file');
    assert.deepEqual(vm.nccl.topologyFile, {
      path: '/var/run/nvidia-topologyd/virtualTopology.xml',
      state: 'used',
      via: 'virtual',
      why: null,
    });
    for (const [i, p] of vm.pairs.entries()) {
      assert.deepEqual([p.nics[0]?.device, p.ncclPath, p.gdr], [`mlx5_${i}`, 'PIX', true], p.reason);
    }
    assert.ok(!vm.findings.some((f) => f.id === 'topo.nic-far'), vm.findings.map((f) => f.id).join(', '));
    // NCCL 2.9 does not load it: the guest's own tree, every NIC behind the CPU.
    const old = await diagnose('vm-h200-topo', '--nccl', '2.9', '--nccl-env', 'NCCL_NET_GDR_READ=1');
    assert.deepEqual([old.nccl.topologySource, old.pairs[0].ncclPath, old.pairs[0].gdr], ['sysfs', 'PHB', false]);
  });

  it('an EFA host with aws-ofi-nccl: no warning, each GPU "the network plugin decides" on its own EFA device, never "no usable NIC"', async () => {
    const efa = await diagnose('efa-p5');
    assert.equal(efa.pairs.length, 8);
    for (const p of efa.pairs) {
      assert.deepEqual([p.network, p.ncclPath, p.gdr], ['plugin', 'PIX', null], p.reason);
      assert.match(p.nics[0]?.device ?? '', /^rdmap[0-9a-f]+s0$/);
      assert.match(p.reason, /if the network plugin reports it can register GPU memory/);
    }
    const bad = efa.findings.filter((f) => f.severity !== 'info');
    assert.deepEqual(bad, [], JSON.stringify(bad));
    // The plugin from the linker cache, the efa provider from fi_info (read only where the efa driver is loaded).
    const evidence = efa.findings.find((f) => f.id === 'net.plugin')?.evidence ?? [];
    assert.ok(
      evidence.some((e) => e.endsWith('/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so')),
      evidence.join('\n'),
    );
    assert.ok(
      evidence.some((e) => e.includes('provider efa, fabric efa, domain rdmap0s26-rdm')),
      evidence.join('\n'),
    );
    // The text report says it short, too.
    const r = await runCli(['diagnose', '-F', lab.sshConfigPath, 'efa-p5']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /GDR: the network plugin decides/);
    assert.doesNotMatch(r.stdout, /no usable NIC/);
  });

  it('an EFA host whose job sets NCCL_NET_PLUGIN=none: TCP sockets, said so', async () => {
    const none = await diagnose('efa-p5', '--nccl-env', 'NCCL_NET_PLUGIN=none');
    assert.ok(none.pairs.every((p) => p.network === 'Socket' && p.gdr === false));
    assert.equal(none.findings.find((f) => f.id === 'net.plugin-missing')?.severity, 'warning');
  });
});
