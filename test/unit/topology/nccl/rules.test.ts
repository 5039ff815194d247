// Which NCCL rule holds in which release: one row per change, each naming the tag and file it was read
// in (NVIDIA/nccl). `sys` is the number NCCL prints for SYS in "distance a > b" in that release.
import * as assert from 'node:assert/strict';
import { ncclRules } from '../../../../src/core/topology/nccl/rules';
import { parseNcclVersion } from '../../../../src/core/topology/nccl/version';

interface Row {
  readonly version: string;
  readonly source: string;
  readonly expect: Partial<Record<keyof ReturnType<typeof ncclRules>, unknown>> & { sys?: number };
}

const ROWS: readonly Row[] = [
  {
    version: '2.7.8',
    source: 'v2.7.8-1 src/graph/topo.h PATH_*; paths.cc no PXN',
    expect: { pxn: 'none', sys: 5, gdrReadOnlyPreAmpere: false },
  },
  { version: '2.11.4', source: 'v2.11.4-1 src/graph/topo.h (NVB added in 2.8)', expect: { pxn: 'none', sys: 6 } },
  {
    version: '2.9.9',
    source: 'v2.9.9-1 src/graph/topo.cc: only NCCL_TOPO_FILE, no virtualTopology.xml',
    expect: { virtualTopology: false },
  },
  { version: '2.10.3', source: 'v2.10.3-1 topo.cc: /var/run/nvidia-topologyd/virtualTopology.xml', expect: { virtualTopology: true } },
  {
    version: '2.12.7',
    source: 'v2.12.7-1 src/graph/paths.cc ncclTopoComputePaths: the first NVLink peer within PXB (addInterStep; break)',
    expect: { pxn: 'first-peer', pxnWhenPeerFaster: false, sys: 7 },
  },
  {
    version: '2.12.12',
    source: 'v2.12.12-1 src/graph/paths.cc ncclTopoComputePaths: PXN from any NVLink peer, preferring its own first NIC',
    expect: { pxn: 'any-peer', pxnWhenPeerFaster: false, sys: 7, dmabuf: false, hcaGdrLine: false },
  },
  {
    version: '2.13.4',
    source: 'v2.13.4-1 src/init.cc NCCL_PARAM(DmaBufEnable), net_ib.cc NCCL_PTR_DMABUF; topo.cc "GPU Direct RDMA %s for HCA"',
    expect: { dmabuf: true, hcaGdrLine: true },
  },
  {
    version: '2.14.3',
    source: 'v2.14.3-1 paths.cc: "Has either higher BW to that NIC or avoids going through a CPU"',
    expect: { pxn: 'any-peer', pxnWhenPeerFaster: true },
  },
  {
    version: '2.18.1',
    source: 'v2.18.1-1 paths.cc: ncclTopoGetLocalGpu picks the relaying GPU',
    expect: { pxn: 'nic-local-gpu', gdrReadOnlyPreAmpere: false },
  },
  { version: '2.19.1', source: 'v2.19.1-1 paths.cc ncclTopoCheckGdr: "cudaCompCap < 80"', expect: { gdrReadOnlyPreAmpere: true } },
  {
    version: '2.22.3',
    source: 'v2.22.3-1 net_ib.cc ncclIbGdrSupport: nv_mem and nv_mem_nc',
    expect: { peermemFiles: ['/sys/kernel/mm/memory_peers/nv_mem/version', '/sys/kernel/mm/memory_peers/nv_mem_nc/version'] },
  },
  {
    version: '2.23.4',
    source: 'v2.23.4-1 net_ib.cc: also /sys/module/nvidia_peermem/version',
    expect: {
      peermemFiles: [
        '/sys/kernel/mm/memory_peers/nv_mem/version',
        '/sys/kernel/mm/memory_peers/nv_mem_nc/version',
        '/sys/module/nvidia_peermem/version',
      ],
    },
  },
  { version: '2.25.1', source: 'v2.25.1-1 src/include/graph.h: no C2C', expect: { c2c: 'none', gdrC2cDefault: null, sys: 7 } },
  {
    version: '2.26.2',
    source: 'v2.26.2-1 paths.cc: NCCL_PARAM(NetGdrC2c, "NET_GDR_C2C", 0), PHB+C2C → C2C in ncclTopoCheckGdr',
    expect: { c2c: 'check-gdr-phb', gdrC2cDefault: 0, pxnC2cDefault: null, sys: 8 },
  },
  {
    version: '2.27.3',
    source: 'v2.27.3-1 graph.h PATH_PXN 6 < PATH_P2C 7; paths.cc NET_GDR_C2C 1, PXN_C2C 0',
    expect: { c2c: 'p2c-all-phb', gdrC2cDefault: 1, pxnC2cDefault: 0, pxnDirectBeyond: 'PXB', sys: 9 },
  },
  {
    version: '2.27.5',
    source: 'v2.27.5-1 graph.h PATH_P2C 6 < PATH_PXN 7; paths.cc mergePathType, "gpu->paths[NET][n].type > pxnType"',
    expect: { c2c: 'p2c-merge', pxnDirectBeyond: 'pxnType', c2cThreshold: false },
  },
  { version: '2.27.6', source: 'v2.27.6-1 paths.cc: "gpu->paths[NET][n].type > PATH_PXN"', expect: { pxnDirectBeyond: 'PXN' } },
  { version: '2.28.3', source: 'v2.28.3-1 paths.cc NCCL_PARAM(PxnC2c, "PXN_C2C", 1)', expect: { pxnC2cDefault: 1 } },
  {
    version: '2.29.2',
    source: 'v2.29.2-1 paths.cc netGdrLevel = ncclParamNetGdrC2c() ? PATH_P2C : PATH_PXB; P2C for local NICs only',
    expect: { c2c: 'p2c-merge-local', c2cThreshold: true, pxnPeerNeedsGdr: false },
  },
  {
    version: '2.29.7',
    source: 'v2.29.7-1 paths.cc: INFO "GPU Direct RDMA Disabled for %s"',
    expect: { perGpuGdrInfo: true, netDevModulo: false, gpuLinkCurrent: false },
  },
  {
    version: '2.30.3',
    source: 'v2.30.3-1 paths.cc: the PXN peer must pass ncclTopoCheckGdr; per-GPU GDR lines TRACE only',
    expect: { pxnPeerNeedsGdr: true, perGpuGdrInfo: false, netDevModulo: false },
  },
  {
    version: '2.30.4',
    source: 'v2.30.4-1 topo.cc ncclTopoGetLocalNetType: net = gpu.dev; xml.cc: a GPU link is max_link_speed/width',
    expect: { netDevModulo: false, gpuLinkCurrent: false },
  },
  {
    version: '2.30.7',
    source: 'v2.30.7-1 topo.cc: net = gpu.dev % localGpuCount; xml.cc: a GPU link from NVML (current gen and width)',
    expect: { pxnPeerNeedsGdr: true, sys: 9, netDevModulo: true, gpuLinkCurrent: true, perGpuGdrInfo: false },
  },
];

describe('NCCL rules by release (each row: the tag and file it was read in)', () => {
  for (const row of ROWS) {
    it(`${row.version}: ${row.source}`, () => {
      const version = parseNcclVersion(row.version);
      assert.ok(version);
      const rules = ncclRules(version);
      const { sys, ...fields } = row.expect;
      for (const [key, value] of Object.entries(fields)) assert.deepEqual(rules[key as keyof typeof rules], value, key);
      if (sys !== undefined) assert.equal(rules.order.indexOf('SYS'), sys);
    });
  }

  it("a version without patch takes its minor's newest rules: 2.27 is past 2.27.5", () => {
    const rules = ncclRules({ major: 2, minor: 27, patch: null });
    assert.equal(rules.c2c, 'p2c-merge');
    assert.deepEqual(rules.order.slice(4, 8), ['PIX', 'PXB', 'P2C', 'PXN']);
  });
});
