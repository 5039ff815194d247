// NCCL's own configuration on the host: /etc/nccl.conf and ~/.nccl.conf merged under the job's environment
// as NVIDIA/nccl src/misc/param.cc initEnv/setEnvFile does (v2.30.7-1; the order is the same in every tag
// from 2.7), and the XML topology NCCL loads instead of sysfs (src/graph/topo.cc ncclTopoGetSystem). The
// conf files are the real Azure image's (test/fixtures/nccl-conf) or CONSTRUCTED one-liners in its format;
// the topology is the lab's ASSEMBLED virtualTopology.xml (test/lab/profiles/README.md, vm-h200-topo).
import * as assert from 'node:assert/strict';
import { diagnose, readNcclAssumptions } from '../../../src/core/diagnosis';
import { parseNcclConf, parseNcclConfText } from '../../../src/core/probe/ncclConfig';
import { constructedSysfs, pciSysfsText } from '../topology/nccl/constructedSysfs';
import { headed, memoryPeers } from './constructedInputs';
import { fixture, hostReport, labFile } from './hostReport';
import { HEALTHY } from './hosts';

const AZURE_CONF = fixture('nccl-conf/azure-hpc-ubuntu-ndv4-etc-nccl-conf.txt');
const HOME_CONF = '/home/gdr/.nccl.conf';

function nccl(version?: string, env: string[] = []) {
  const a = readNcclAssumptions(version, env);
  if (typeof a === 'string') throw new Error(a);
  return a;
}

describe('nccl.conf as NCCL reads it (src/misc/param.cc setEnvFile)', () => {
  it("reads the Azure image's /etc/nccl.conf: four NAME=VALUE lines", () => {
    const r = parseNcclConfText(AZURE_CONF);
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.entries.map((e) => `${e.line}:${e.name}=${e.value}`),
      [
        '1:NCCL_IB_PCI_RELAXED_ORDERING=1',
        '2:CUDA_DEVICE_ORDER=PCI_BUS_ID',
        '3:NCCL_TOPO_FILE=/opt/microsoft/ndv4-topo.xml',
        '4:NCCL_SOCKET_IFNAME=eth0',
      ],
    );
  });

  it('as the probe prints both files: comments skipped, no `=` skipped, name not trimmed, a CR kept, a cut said', () => {
    const r = parseNcclConf(
      headed({
        '/etc/nccl.conf': '# site defaults\nNCCL_NET_GDR_LEVEL=PHB\r\nnonsense\n NCCL_IB_HCA=mlx5_0',
        [HOME_CONF]: 'NCCL_IB_DISABLE=1',
      }),
    );
    assert.ok(r.ok);
    const [etc, home] = r.value.files;
    assert.deepEqual([etc.scope, home.scope, etc.truncated], ['system', 'user', false]);
    assert.deepEqual(etc.entries, [
      { name: 'NCCL_NET_GDR_LEVEL', value: 'PHB\r', line: 2 },
      { name: ' NCCL_IB_HCA', value: 'mlx5_0', line: 4 },
    ]);
    const big = parseNcclConf(headed({ '/etc/nccl.conf': `NCCL_IB_HCA=${'x'.repeat(70_000)}` }));
    assert.ok(big.ok && big.value.files[0].truncated);
  });
});

describe('the effective environment: job > ~/.nccl.conf > /etc/nccl.conf, first line wins (src/misc/param.cc initEnv)', () => {
  const conf = (etc: string, home?: string) => headed({ '/etc/nccl.conf': etc, ...(home === undefined ? {} : { [HOME_CONF]: home }) });
  const rows: { name: string; files: string; job: string[]; version?: string; level: string | undefined; from: string | undefined }[] = [
    { name: '/etc/nccl.conf alone', files: conf('NCCL_NET_GDR_LEVEL=PHB'), job: [], level: 'PHB', from: '/etc/nccl.conf:1' },
    {
      name: '~/.nccl.conf over /etc',
      files: conf('NCCL_NET_GDR_LEVEL=PHB', 'NCCL_NET_GDR_LEVEL=SYS'),
      job: [],
      level: 'SYS',
      from: `${HOME_CONF}:1`,
    },
    {
      name: 'the job over both',
      files: conf('NCCL_NET_GDR_LEVEL=PHB', 'NCCL_NET_GDR_LEVEL=SYS'),
      job: ['NCCL_NET_GDR_LEVEL=PXB'],
      level: 'PXB',
      from: 'environment',
    },
    {
      name: 'within a file, the first line',
      files: conf('NCCL_NET_GDR_LEVEL=PHB\nNCCL_NET_GDR_LEVEL=SYS'),
      job: [],
      level: 'PHB',
      from: '/etc/nccl.conf:1',
    },
    { name: 'a name with a blank is another variable', files: conf('NCCL_NET_GDR_LEVEL =SYS'), job: [], level: undefined, from: undefined },
    // v2.30.3-1 setEnvFile strips a trailing CR; earlier releases keep it, and "PHB\r" is no level.
    { name: 'CRLF, NCCL 2.30.7', files: conf('NCCL_NET_GDR_LEVEL=PHB\r'), job: [], level: 'PHB', from: '/etc/nccl.conf:1' },
    {
      name: 'CRLF, NCCL 2.30.3',
      files: conf('NCCL_NET_GDR_LEVEL=PHB\r'),
      job: [],
      version: '2.30.3',
      level: 'PHB',
      from: '/etc/nccl.conf:1',
    },
    {
      name: 'CRLF, NCCL 2.29.7',
      files: conf('NCCL_NET_GDR_LEVEL=PHB\r'),
      job: [],
      version: '2.29.7',
      level: 'PHB\r',
      from: '/etc/nccl.conf:1',
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const d = diagnose(await hostReport({ ...HEALTHY, 'nccl-conf': row.files }), nccl(row.version, row.job));
      assert.equal(d.nccl.env.NCCL_NET_GDR_LEVEL, row.level);
      const origin = d.nccl.envFrom.NCCL_NET_GDR_LEVEL;
      assert.equal(origin ? (origin.line === null ? origin.from : `${origin.from}:${origin.line}`) : undefined, row.from);
      if (row.level === 'PHB\r') assert.match(d.nccl.envProblems.join(), /NCCL_NET_GDR_LEVEL=PHB\\r is not a level NCCL accepts/);
    });
  }

  it("the Azure /etc/nccl.conf's NCCL_TOPO_FILE counts; its other lines change no verdict", async () => {
    const d = diagnose(await hostReport({ ...HEALTHY, 'nccl-conf': headed({ '/etc/nccl.conf': AZURE_CONF }) }));
    assert.deepEqual(d.nccl.env, { NCCL_TOPO_FILE: '/opt/microsoft/ndv4-topo.xml' });
    // The probe looked for the file and found none: NCCL cannot open it and reads sysfs (ncclTopoGetXmlFromFile).
    const noFile = diagnose(await hostReport({ ...HEALTHY, 'nccl-conf': headed({ '/etc/nccl.conf': AZURE_CONF }), 'nccl-topo': '' }));
    assert.deepEqual(noFile.nccl.topologyFile, { path: '/opt/microsoft/ndv4-topo.xml', state: 'absent', via: 'NCCL_TOPO_FILE', why: null });
    assert.ok(noFile.pairs.every((p) => p.gdr !== null));
  });

  it('verdicts follow /etc/nccl.conf: NCCL_NET_GDR_LEVEL=SYS there gives far GPUs GPUDirect RDMA', async () => {
    const plain = diagnose(await hostReport({ ...HEALTHY, topo: fixture('topo/pcie-8gpu-no-nvlink-1nic-node-half.txt') }));
    const withConf = diagnose(
      await hostReport({
        ...HEALTHY,
        topo: fixture('topo/pcie-8gpu-no-nvlink-1nic-node-half.txt'),
        'nccl-conf': conf('NCCL_NET_GDR_LEVEL=SYS\nNCCL_NET_GDR_READ=1'),
      }),
    );
    assert.deepEqual([plain.pairs[0].gdr, withConf.pairs[0].gdr], [false, true]);
    assert.match(
      withConf.pairs[0].reason,
      /Set on the host, and followed here .*: NCCL_NET_GDR_LEVEL=SYS \(\/etc\/nccl\.conf:1\), NCCL_NET_GDR_READ=1 \(\/etc\/nccl\.conf:2\)\./,
    );
  });
});

describe('the XML topology NCCL loads instead of sysfs (src/graph/topo.cc ncclTopoGetSystem)', () => {
  // vm-h200's guest tree: every GPU and NIC on its own emulated root port (lab sysfs.json, ASSEMBLED).
  const rootPort = (i: number) => `0000:00:${(0x01 + Math.floor((i + 4) / 8)).toString(16).padStart(2, '0')}.${(i + 4) % 8}`;
  const gpus = Array.from({ length: 8 }, (_, i) => ({ path: `/sys/devices/pci0000:00/${rootPort(i)}/0000:0${(5 + i).toString(16)}:00.0` }));
  const nics = Array.from({ length: 8 }, (_, i) => ({
    name: `mlx5_${i}`,
    path: `/sys/devices/pci0000:00/${rootPort(i + 8)}/0000:${(0x0d + i).toString(16).padStart(2, '0')}:00.0`,
    ports: [{ linkLayer: 'Ethernet' }],
  }));
  const VIRTUAL = '/var/run/nvidia-topologyd/virtualTopology.xml';
  const VM = {
    gpus: labFile('vm-h200', 'out/nvidia-smi_--query-gpu=index,name,pci.bus%5Fid,driver%5Fversion_--format=csv.stdout'),
    'pci-sysfs': pciSysfsText(constructedSysfs(gpus, nics)),
    'memory-peers': memoryPeers('595.71.05'),
  };
  const topology = headed({ [VIRTUAL]: labFile('vm-h200-topo', 'files/run/nvidia-topologyd/virtualTopology.xml') });
  const vmHost = (extra: Record<string, string>) => hostReport({ ...VM, ...extra });

  it("sysfs alone: the guest's emulated tree puts every NIC behind the CPU (PHB), no GPUDirect RDMA", async () => {
    const d = diagnose(await vmHost({ 'nccl-topo': '' }));
    assert.equal(d.nccl.topologySource, 'sysfs');
    assert.deepEqual([d.pairs[0].ncclPath, d.pairs[0].gdr], ['PHB', false]);
  });

  const rows: [string | undefined, string[], 'topo-file' | 'sysfs', boolean | null][] = [
    [undefined, [], 'topo-file', true], // 2.30.7 loads virtualTopology.xml
    // From 2.10; NCCL_NET_GDR_READ=1: before 2.19 sends of a GPU without a known NVLink peer would read through the host.
    ['2.10.3', ['NCCL_NET_GDR_READ=1'], 'topo-file', true],
    ['2.9.9', [], 'sysfs', false], // before 2.10 only NCCL_TOPO_FILE is read
    [undefined, ['NCCL_TOPO_FILE=/etc/other-topo.xml'], 'sysfs', null], // a file the probe did not read: unknown
  ];
  for (const [version, env, source, gdr] of rows) {
    it(`NCCL ${version ?? 'newest'} ${env.join(' ')}: ${source}, GPUDirect RDMA ${gdr === null ? 'unknown' : gdr ? 'on' : 'off'}`, async () => {
      const d = diagnose(await vmHost({ 'nccl-topo': topology }), nccl(version, env));
      assert.equal(d.nccl.topologySource, source);
      for (const p of d.pairs) assert.equal(p.gdr, gdr, `${p.gpu}: ${p.reason}`);
      if (gdr === true) {
        assert.deepEqual([d.pairs[3].nics[0].device, d.pairs[3].ncclPath], ['mlx5_3', 'PIX']);
        assert.match(
          d.pairs[3].reason,
          /Paths from \/var\/run\/nvidia-topologyd\/virtualTopology\.xml \(the VM image's virtual topology\)/,
        );
      }
      if (gdr === null) {
        assert.deepEqual(d.nccl.topologyFile?.state, 'unread');
        assert.deepEqual(
          d.pairs[0].missing.map((m) => m.fact),
          ['topo-file'],
        );
        assert.match(d.pairs[0].missing[0].read, /^cat \/etc\/other-topo\.xml/);
      }
    });
  }

  it('a topology file that does not place a GPU: unknown, saying which', async () => {
    const partial = labFile('vm-h200-topo', 'files/run/nvidia-topologyd/virtualTopology.xml').replace('0000:05:00.0', '0000:55:00.0');
    const d = diagnose(await vmHost({ 'nccl-topo': headed({ [VIRTUAL]: partial }) }));
    assert.equal(d.nccl.topologyFile?.state, 'unread');
    assert.match(d.nccl.topologyFile?.why ?? '', /GPU0 \(0000:05:00\.0\)/);
    assert.ok(d.pairs.every((p) => p.gdr === null));
  });

  it('a file NCCL could not parse is not guessed at', async () => {
    const d = diagnose(await vmHost({ 'nccl-topo': headed({ [VIRTUAL]: '<system version="1">\n  <cpu numaid="0">\n' }) }));
    assert.equal(d.nccl.topologyFile?.state, 'unread');
    assert.ok(d.pairs.every((p) => p.gdr === null));
  });
});
