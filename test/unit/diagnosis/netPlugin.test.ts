// Network plugins: an AWS EFA host (RDMA devices whose link layer is neither InfiniBand nor Ethernet) is
// NCCL's through aws-ofi-nccl (NVIDIA/nccl v2.30.7-1 src/plugin/net.cc: libnccl-net.so first, then IB, then
// Socket). The fi_info output is real (test/fixtures/fi-info); the PCI tree, port states and matrix are the
// efa-p5 lab profile's, ASSEMBLED (test/lab/profiles/README.md); the plugin list is the probe's own
// one-path-per-line list.
import * as assert from 'node:assert/strict';
import { diagnose, readNcclAssumptions, shortVerdict } from '../../../src/core/diagnosis';
import { hostVerdict } from '../../../src/core/diagnosis/hostVerdict';
import { labSysfsText } from '../topology/pcie/labSysfs';
import { KALLSYMS_ABSENT, NO_FILES, commandNotFound } from './constructedInputs';
import { fixture, hostReport, labFile } from './hostReport';
import { HEALTHY, NO_PEERMEM, ids, problems } from './hosts';

const PLUGIN = '/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so\n';
const EFA_HOST = {
  ...NO_PEERMEM,
  ibv: commandNotFound('ibv_devinfo'),
  topo: labFile('efa-p5', 'out/nvidia-smi_topo_-m.stdout'),
  'smi-q': fixture('smi-q/h100-80gb-hbm3-x8-driver565.txt'),
  'pci-sysfs': labSysfsText('efa-p5'),
  ofed: commandNotFound('ofed_info'),
  'kallsyms-peer': KALLSYMS_ABSENT,
  'memory-peers': NO_FILES,
  'nccl-net-plugin': PLUGIN,
  'fi-info': fixture('fi-info/aws-efa-eks-slinky-g5-fi-info-p-efa.txt'),
};

function nccl(env: string[] = []) {
  const a = readNcclAssumptions(undefined, env);
  if (typeof a === 'string') throw new Error(a);
  return a;
}

describe('network plugins: an EFA host (src/plugin/net.cc)', () => {
  it('the plugin carries the traffic: each GPU gets its EFA device over PIX, "the network plugin decides", never "no usable NIC"', async () => {
    const d = diagnose(await hostReport(EFA_HOST));
    assert.equal(d.pairs.length, 8);
    for (const p of d.pairs) {
      assert.deepEqual([p.network, p.ncclPath, p.gdr], ['plugin', 'PIX', null], p.reason);
      assert.equal(shortVerdict(p), 'GDR: the network plugin decides');
      assert.match(p.reason, /if the network plugin reports it can register GPU memory \(aws-ofi-nccl: libfabric FI_HMEM/);
      assert.match(p.confirm, /NET\/OFI Selected provider is efa/);
      assert.deepEqual(
        p.missing.map((m) => m.fact),
        ['nic-support'],
      );
      assert.match(p.missing[0].read, /fi_info -p efa -c FI_HMEM/);
    }
    assert.deepEqual(
      d.pairs.map((p) => p.nics[0].device),
      ['rdmap25s0', 'rdmap41s0', 'rdmap59s0', 'rdmap92s0', 'rdmap155s0', 'rdmap170s0', 'rdmap187s0', 'rdmap218s0'],
    );
    // No error or warning at all: EFA registers GPU memory through the plugin, not NCCL's peer-memory test.
    assert.deepEqual(problems(d.findings), []);
    assert.ok(
      !ids(d.findings).some((id) => id.startsWith('peermem.') || id === 'ofed.missing' || id === 'rdma.none'),
      ids(d.findings).join(),
    );
    const info = d.findings.find((f) => f.id === 'net.plugin');
    assert.equal(info?.severity, 'info');
    assert.ok(info?.evidence.some((e) => e.endsWith('/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so')));
    assert.ok(info?.evidence.some((e) => e.includes('provider efa, fabric efa, domain rdmap0s26-rdm, FI_EP_RDM')));
    assert.equal(hostVerdict(d).tone, 'unknown');
  });

  const rows: [string, Record<string, string>, string[], string][] = [
    ['no libnccl-net*.so anywhere NCCL looks', { 'nccl-net-plugin': '' }, [], 'no-plugin'],
    ['NCCL_NET_PLUGIN=none', {}, ['NCCL_NET_PLUGIN=none'], 'no-plugin'],
    ['NCCL_NET_PLUGIN=other (libnccl-net-other.so is not there)', {}, ['NCCL_NET_PLUGIN=other'], 'no-plugin'],
    ['NCCL_NET=Socket', {}, ['NCCL_NET=Socket'], 'net-socket'],
  ];
  for (const [name, files, env, why] of rows) {
    it(`${name}: TCP sockets, no GPUDirect RDMA`, async () => {
      const d = diagnose(await hostReport({ ...EFA_HOST, ...files }), nccl(env));
      assert.ok(d.pairs.every((p) => p.network === 'Socket' && p.gdr === false));
      assert.equal(shortVerdict(d.pairs[0]), 'no GDR: TCP sockets');
      if (why === 'no-plugin') {
        assert.match(d.pairs[0].reason, /only a network plugin \(aws-ofi-nccl for EFA\) drives them, and no libnccl-net\*\.so was found/);
        assert.equal(d.findings.find((f) => f.id === 'net.plugin-missing')?.severity, 'warning');
      } else assert.match(d.pairs[0].reason, /NCCL_NET=Socket makes NCCL 2\.30\.7 send over TCP sockets/);
    });
  }

  it('NCCL_NET_PLUGIN=aws (libnccl-net-aws.so present) is the plugin too', async () => {
    const d = diagnose(
      await hostReport({ ...EFA_HOST, 'nccl-net-plugin': '/usr/local/lib/libnccl-net-aws.so\n' }),
      nccl(['NCCL_NET_PLUGIN=aws']),
    );
    assert.equal(d.pairs[0].network, 'plugin');
  });

  it('an InfiniBand host with a plugin (HPC-X SHARP) stays NET/IB: the plugin drives IB ports as NCCL does', async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, 'nccl-net-plugin': '/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so\n' }));
    assert.ok(d.pairs.every((p) => p.network === 'IB' && p.gdr === true));
    assert.ok(!ids(d.findings).includes('net.plugin'));
  });
});
