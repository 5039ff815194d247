// Where NCCL's header is on a line, whatever a launcher or logger put before it. Each row is a real
// line (its source named) unless it says it was formatted by hand from a documented prefix format.
import * as assert from 'node:assert/strict';
import { findHeaders, MAX_MESSAGE_CHARS } from '../../../src/core/parsers/ncclLogPrefix';

interface Row {
  readonly what: string;
  readonly line: string;
  readonly expect: {
    column: number;
    host: string | null;
    pid?: number | null;
    tid?: number | null;
    dev: number | null;
    level: string;
    origin?: string | null;
    message: string;
  };
}

const ROWS: Row[] = [
  {
    what: 'no prefix (NVIDIA/nccl-tests#350)',
    line: 'n013:101855:101885 [0] NCCL INFO Using network IB',
    expect: { column: 0, host: 'n013', pid: 101855, tid: 101885, dev: 0, level: 'INFO', origin: null, message: 'Using network IB' },
  },
  {
    what: 'Open MPI --tag-output (NVIDIA/nccl#300)',
    line: '[1,0]<stdout>:5873af64cf59:10158:10560 [0] NCCL INFO NET/IB : No device found.',
    expect: { column: 14, host: '5873af64cf59', dev: 0, level: 'INFO', message: 'NET/IB : No device found.' },
  },
  {
    what: 'a rank in brackets (NVIDIA/nccl#302)',
    line: '[155] crow-ib-new-nccl-256-info-19:5330:5499 [3] NCCL INFO Ring 00 : 155[3d000] -> 157[b2000] via P2P/IPC',
    expect: {
      column: 6,
      host: 'crow-ib-new-nccl-256-info-19',
      dev: 3,
      level: 'INFO',
      message: 'Ring 00 : 155[3d000] -> 157[b2000] via P2P/IPC',
    },
  },
  {
    what: 'torchrun --tee (pytorch/torchtitan#1570)',
    line: '[rank0]:costa-671b-5-worker-1:382:582 [0] NCCL INFO Channel 05/0 : 8[0] -> 15[7] via P2P/CUMEM',
    expect: { column: 8, host: 'costa-671b-5-worker-1', dev: 0, level: 'INFO', message: 'Channel 05/0 : 8[0] -> 15[7] via P2P/CUMEM' },
  },
  {
    what: 'Ray worker (ray-project/ray#40850)',
    line: "(RayTrainWorker pid=83500) localhost:83500:84560 [2] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 1 'virbr0'",
    expect: {
      column: 27,
      host: 'localhost',
      pid: 83500,
      dev: 2,
      level: 'INFO',
      message: "NET/Socket : GPU Direct RDMA Disabled for HCA 1 'virbr0'",
    },
  },
  {
    what: 'CloudWatch columns (aws/aws-ofi-nccl#715)',
    line: '  | 2024-12-04T05:27:45.084Z | algo-1:18057:18152 [0] NCCL INFO NET/OFI Global registrations supported',
    expect: { column: 31, host: 'algo-1', dev: 0, level: 'INFO', message: 'NET/OFI Global registrations supported' },
  },
  {
    what: "NCCL's own timestamp, WARN with function:line (aws/aws-ofi-nccl#1020)",
    line: '[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available',
    expect: {
      column: 22,
      host: 'ip-172-31-3-90',
      dev: 0,
      level: 'WARN',
      origin: 'nccl_net_ofi_rdma_init:7978',
      message: 'NET/OFI OFI fi_getinfo() call failed: No data available',
    },
  },
  {
    what: '2.4 WARN behind mpirun (aws/aws-ofi-nccl#24)',
    line: "[1,23]<stdout>:ip-172-32-45-165:72593:73427 [7] create_nccl_ofi_component:459 NCCL WARN NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
    expect: {
      column: 15,
      host: 'ip-172-32-45-165',
      dev: 7,
      level: 'WARN',
      origin: 'create_nccl_ofi_component:459',
      message: "NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument",
    },
  },
  {
    what: '2.30 WARN "[%d] %s:%d (%s) NCCL WARN" (src/debug.cc v2.30.7-1, formatted by hand)',
    line: 'gpu-a:7:9 [1] transport/net_ib/connect.cc:812 (ncclIbConnect) NCCL WARN NET/IB : got completion with error',
    expect: {
      column: 0,
      host: 'gpu-a',
      dev: 1,
      level: 'WARN',
      origin: 'transport/net_ib/connect.cc:812 (ncclIbConnect)',
      message: 'NET/IB : got completion with error',
    },
  },
  {
    what: 'TRACE "[%d] %f %s:%d NCCL TRACE" (src/debug.cc, formatted by hand)',
    line: 'gpu-a:7:9 [1] 1234.567890 ncclTopoCheckGdr:546 NCCL TRACE GPU Direct RDMA Disabled for GPU/0-110592 (rank 0) - NET/0-0 (distance 7 > 5)',
    expect: {
      column: 0,
      host: 'gpu-a',
      dev: 1,
      level: 'TRACE',
      origin: 'ncclTopoCheckGdr:546',
      message: 'GPU Direct RDMA Disabled for GPU/0-110592 (rank 0) - NET/0-0 (distance 7 > 5)',
    },
  },
  {
    what: 'Slurm srun --label "%d: " (srun(1), formatted by hand)',
    line: '12: node042:4117:4190 [3] NCCL INFO Using network IB',
    expect: { column: 4, host: 'node042', dev: 3, level: 'INFO', message: 'Using network IB' },
  },
  {
    what: 'host part cut off by the poster (NVIDIA/nccl-tests#245)',
    line: '[0] NCCL INFO DMA-BUF is available on GPU device 0',
    expect: { column: 0, host: null, pid: null, dev: 0, level: 'INFO', message: 'DMA-BUF is available on GPU device 0' },
  },
  {
    what: 'whole header stripped by the author (fixture roce-gb10-gdr0-…)',
    line: 'NCCL INFO Connected all rings, use ring PXN 0 GDR 0',
    expect: { column: 0, host: null, dev: null, level: 'INFO', message: 'Connected all rings, use ring PXN 0 GDR 0' },
  },
  {
    what: 'version on its own (NCCL ≤ 2.22, NVIDIA/nccl-tests#350)',
    line: 'NCCL version 2.16.5+cuda11.8',
    expect: { column: 0, host: null, dev: null, level: 'VERSION', message: 'NCCL version 2.16.5+cuda11.8' },
  },
  {
    what: 'version behind mpirun (NVIDIA/nccl#300)',
    line: '[1,0]<stdout>:NCCL version 2.5.6+cuda10.2',
    expect: { column: 14, host: null, dev: null, level: 'VERSION', message: 'NCCL version 2.5.6+cuda10.2' },
  },
];

const NOT_NCCL = [
  // PyTorch quoting NCCL's version in its own error (the title of NVIDIA/nccl#1016).
  'NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1',
  '#  Rank  0 Group  0 Pid 101855 on       n013 device  0 [0000:81:00] NVIDIA A100-PCIE-40GB',
  'W1125 19:44:46.787000 1122840 torch/distributed/run.py:803] *****************************************',
  'NCCL EP version 0.1.0+cuda13.3',
];

describe('NCCL header on a log line', () => {
  for (const row of ROWS) {
    it(row.what, () => {
      const headers = findHeaders(row.line);
      assert.equal(headers.length, 1, JSON.stringify(headers));
      const h = headers[0] as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(row.expect)) assert.deepEqual(h[key], value, key);
      assert.equal(row.line.slice(headers[0].messageColumn), row.expect.message, 'messageColumn points at the message');
    });
  }

  it("finds none on lines that are not NCCL's", () => {
    for (const line of NOT_NCCL) assert.deepEqual(findHeaders(line), [], line);
  });

  it("splits a line where several processes' messages ran together, each cut by the next (deepseek-ai/DeepEP#106)", () => {
    const line =
      'NCCL INFO Channel 12/0 : 13[5] -> 5[5] [receive] via NET/IBext/5/GDRDMA          VM-17-82-centos:11980:12549 [2] NCCL INFO Channel 03/0 : 2[2] -> 10[2] [send] via NET/IBext/2/GDRDMA';
    const headers = findHeaders(line);
    assert.deepEqual(
      headers.map((h) => [h.host, h.dev, h.message.trim(), h.cut]),
      [
        [null, null, 'Channel 12/0 : 13[5] -> 5[5] [receive] via NET/IBext/5/GDRDMA', true],
        ['VM-17-82-centos', 2, 'Channel 03/0 : 2[2] -> 10[2] [send] via NET/IBext/2/GDRDMA', false],
      ],
    );
  });

  it("splits a message cut by another process's header in its middle", () => {
    // Formatted by hand from two real lines of fixture ib-no-module-2-containers-part2-channels-cut.
    const line =
      '21346d5cefce:5325:5338 [0] NCCL INFO Channel 00 : 0[1a0006a5a91752e39:74352:74372 [0] NCCL INFO Channel 00 : 1[1a000] -> 0[1a000] [receive] via NET/IB/0';
    const headers = findHeaders(line);
    assert.equal(headers.length, 2);
    assert.equal(headers[0].cut, true);
    assert.ok(headers[0].message.startsWith('Channel 00 : 0['), headers[0].message);
    // Where the two touch, nothing tells the end of one from the start of the other host name.
    assert.ok(headers[1].host?.endsWith('6a5a91752e39'), String(headers[1].host));
    assert.deepEqual([headers[1].message, headers[1].cut], ['Channel 00 : 1[1a000] -> 0[1a000] [receive] via NET/IB/0', false]);
  });

  it('reads a message up to MAX_MESSAGE_CHARS (NCCL formats a line into 1 KiB) and marks it cut', () => {
    const header = 'gpu01:1:2 [3] NCCL INFO ';
    const [h] = findHeaders(`${header}Using network ${'x'.repeat(64 * 1024)}`);
    assert.equal(h.message.length, MAX_MESSAGE_CHARS);
    assert.equal(h.cut, true);
    assert.deepEqual(
      findHeaders(`${header}Using network IB`).map((x) => [x.message, x.cut]),
      [['Using network IB', false]],
    );
  });

  it('takes "NCCL version x.y.z" as a line of its own only as the last word of a line', () => {
    const version = (line: string) => findHeaders(line).map((h) => [h.level, h.column, h.message]);
    assert.deepEqual(version('[1,0]<stdout>:NCCL version 2.5.6+cuda10.2  '), [['VERSION', 14, 'NCCL version 2.5.6+cuda10.2  ']]);
    assert.deepEqual(version('NCCL version 2.5.6 and more'), []);
    assert.deepEqual(version('NCCL version 2.5'), []);
    assert.deepEqual(version(`NCCL version 1.1.${'1'.repeat(60_000)} x`), []);
  });
});
