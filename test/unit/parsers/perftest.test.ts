// ib_write_bw's real outputs (test/fixtures/perftest, sources in SOURCES.md): the bandwidth from
// perftest's own report line in Gb/s whatever unit it printed, the CUDA device, and perftest's own
// error line first; a row that does not read is refused at its line.
import * as assert from 'node:assert/strict';
import { parsePerftest, parsePerftestHelp, PerftestRun } from '../../../src/core/parsers/perftest';
import { expectError, expectOk, readFixture } from '../../support/parsing';

const parse = (name: string) => expectOk(parsePerftest(readFixture('perftest', name)));

interface Expected {
  readonly device: string | null;
  readonly linkType: string | null;
  readonly unit: PerftestRun['unit'];
  readonly rows: number;
  readonly averageGbps: number | null;
  readonly cuda: PerftestRun['cuda'];
  readonly firstError: string | null;
}

// Written by reading each file.
/** A run that failed before its first measurement: no device line, no table. */
const NOTHING_MEASURED = { device: null, linkType: null, unit: null, rows: 0, averageGbps: null } as const;

const EXPECTED: Record<string, Expected> = {
  'write-bw-host-ib-t9k-server-all-sizes.txt': {
    device: 'mlx5_0',
    linkType: 'IB',
    unit: 'Gb/sec',
    rows: 1,
    averageGbps: 98.38,
    cuda: null,
    firstError: null,
  },
  'write-bw-host-ib-t9k-client-all-sizes.txt': {
    device: 'mlx5_0',
    linkType: 'IB',
    unit: 'Gb/sec',
    rows: 23,
    averageGbps: 98.38,
    cuda: null,
    firstError: null,
  },
  'write-bw-cuda-a100-ib-t9k-server-all-sizes.txt': {
    device: 'mlx5_0',
    linkType: 'IB',
    unit: 'Gb/sec',
    rows: 1,
    averageGbps: 80.96,
    cuda: { device: 0, name: 'NVIDIA A100-SXM4-80GB', dmabuf: false, pcieAddress: '57:00' },
    firstError: null,
  },
  'write-bw-cuda-a100-ib-t9k-client-all-sizes.txt': {
    device: 'mlx5_0',
    linkType: 'IB',
    unit: 'Gb/sec',
    rows: 23,
    averageGbps: 80.96,
    cuda: { device: 0, name: 'NVIDIA A100-SXM4-80GB', dmabuf: false, pcieAddress: 'D5:00' },
    firstError: null,
  },
  'write-bw-cuda-a40-roce-200g-duration-16qp-client.txt': {
    device: 'mlx5_1',
    linkType: 'Ethernet',
    unit: 'Gb/sec',
    rows: 1,
    averageGbps: 181.46,
    cuda: { device: 0, name: 'NVIDIA A40', dmabuf: false, pcieAddress: 'E1:00' },
    firstError: null,
  },
  'write-bw-cuda-a40-roce-200g-duration-16qp-server.txt': {
    device: 'mlx5_1',
    linkType: 'Ethernet',
    unit: 'Gb/sec',
    rows: 1,
    averageGbps: 181.46,
    cuda: { device: 0, name: 'NVIDIA A40', dmabuf: false, pcieAddress: '61:00' },
    firstError: null,
  },
  'write-bw-cuda-dmabuf-h200-roce-client-all-sizes.txt': {
    device: 'mlx5_3',
    linkType: 'Ethernet',
    unit: 'Gb/sec',
    rows: 23,
    averageGbps: 140.4,
    cuda: { device: 0, name: 'NVIDIA H200', dmabuf: true, pcieAddress: '8F:00' },
    firstError: null,
  },
  'write-bw-host-roce-200g-client-all-sizes.txt': {
    device: 'mlx5_0',
    linkType: 'Ethernet',
    unit: 'Gb/sec',
    rows: 23,
    averageGbps: 196.07,
    cuda: null,
    firstError: null,
  },
  'write-bw-host-bnxt-roce-400g-duration-rdma-cm-client.txt': {
    device: 'bnxt_re0',
    linkType: 'Ethernet',
    unit: 'Gb/sec',
    rows: 1,
    averageGbps: 363.47,
    cuda: null,
    firstError: null,
  },
  // 14948.67 MiB/s = 14948.67 × 2^20 × 8 bit = 125.40 Gb/s.
  'write-bw-cuda-rtx4080-ib-server-mib.txt': {
    device: 'mlx5_0',
    linkType: 'IB',
    unit: 'MiB/sec',
    rows: 1,
    averageGbps: 125.4,
    cuda: { device: 0, name: 'NVIDIA GeForce RTX 4080', dmabuf: false, pcieAddress: '10:00' },
    firstError: null,
  },
  'write-bw-cuda-mr-failure-k80-server.txt': {
    ...NOTHING_MEASURED,
    cuda: { device: null, name: 'Tesla K80', dmabuf: false, pcieAddress: null },
    firstError: "Couldn't allocate MR",
  },
  'write-bw-cuda-mr-failure-error14-excerpt.txt': {
    ...NOTHING_MEASURED,
    cuda: null,
    firstError: "Couldn't allocate MR with error=14",
  },
  'write-bw-cuda-mr-failure-rdma-cm-client-segfault.txt': {
    ...NOTHING_MEASURED,
    cuda: { device: 0, name: 'NVIDIA A30-8C', dmabuf: false, pcieAddress: '02:00' },
    firstError: "Couldn't allocate MR",
  },
  'write-bw-dmabuf-before-use-cuda-parser-error.txt': {
    ...NOTHING_MEASURED,
    cuda: null,
    firstError: 'CUDA DMA-BUF cannot be used without CUDA',
  },
  'write-bw-host-roce-completion-error-mid-run-client.txt': {
    device: 'mlx5_3',
    linkType: 'Ethernet',
    unit: 'Gb/sec',
    rows: 16,
    averageGbps: 381.41,
    cuda: null,
    firstError: 'Completion with error at client',
  },
};

describe('parsePerftest (ib_write_bw output)', () => {
  for (const [name, want] of Object.entries(EXPECTED)) {
    it(name, () => {
      const run = parse(name);
      const got = {
        device: run.device,
        linkType: run.linkType,
        unit: run.unit,
        rows: run.rows.length,
        averageGbps: run.averageGbps,
        cuda: run.cuda,
        firstError: run.errors[0]?.text ?? null,
      };
      assert.deepEqual(got, want);
    });
  }

  it('reads every row of -a, the last one (8 MiB) giving the bandwidth', () => {
    const run = parse('write-bw-host-ib-t9k-client-all-sizes.txt');
    assert.deepEqual(run.rows.map((r) => r.bytes).slice(0, 3), [2, 4, 8]);
    assert.deepEqual(run.rows[run.rows.length - 1], {
      bytes: 8388608,
      iterations: 5000,
      peak: 98.38,
      average: 98.38,
      msgRateMpps: 0.001466,
      line: 40,
    });
  });

  it('keeps the peak at 0 where -D did not measure it', () => {
    assert.equal(parse('write-bw-host-bnxt-roce-400g-duration-rdma-cm-client.txt').rows[0].peak, 0);
  });

  it('reads a server without --report_gbits in its own header unit: the client holds the numbers in Gb/s', () => {
    // The server prints the client's report (196.07 Gb/s) under "MB/sec": read as MB/s it is 1.64 Gb/s.
    assert.equal(parse('write-bw-host-roce-200g-server-no-report-gbits.txt').averageGbps, 1.64);
    assert.equal(parse('write-bw-host-roce-200g-client-all-sizes.txt').averageGbps, 196.07);
  });

  it('names each error line where it is', () => {
    assert.deepEqual(
      parse('write-bw-cuda-mr-failure-error14-excerpt.txt').errors.map((e) => [e.line, e.text]),
      [
        [5, "Couldn't allocate MR with error=14"],
        [6, 'failed to create mr'],
        [7, 'Failed to create MR'],
        [8, "Couldn't create IB resources"],
      ],
    );
  });

  it('refuses a row it cannot read, at its line', () => {
    const text = readFixture('perftest', 'write-bw-host-ib-t9k-client-all-sizes.txt').replace(
      ' 65536      5000             98.33',
      ' 65536      5000             98.33 Gb/s',
    );
    expectError(parsePerftest(text), 33, /expected a result row.*65536/);
  });

  it('refuses a result header in a unit it does not know', () => {
    const text =
      ' #bytes     #iterations    BW peak[GB/sec]    BW average[GB/sec]   MsgRate[Mpps]\n 65536      5000             9.1              9.1               0.1\n';
    expectError(parsePerftest(text), 1, /unknown bandwidth unit "GB\/sec"/);
  });

  it('skips the CPU-frequency warning perftest prints inside the table', () => {
    const text =
      ' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\nConflicting CPU frequency values detected: 1200.535000 != 1251.336000. CPU Frequency is not max.\n 65536      5000             92.42              92.40              0.176230\n';
    const run = expectOk(parsePerftest(text));
    assert.equal(run.averageGbps, 92.4);
    assert.deepEqual(run.errors, []);
  });
});

describe('parsePerftest on its usage', () => {
  it("reads `ib_write_bw --help` as perftest's usage, with no run in it", () => {
    for (const name of ['help-debian12-perftest-4.5-0.17-no-cuda.txt', 'help-grep-cuda-mlnx-ofed-5.5-cuda-11.6.txt']) {
      const run = parse(name);
      assert.deepEqual([run.usage, run.rows, run.averageGbps, run.cuda], [true, [], null, null], name);
    }
    assert.equal(parse('write-bw-host-ib-t9k-client-all-sizes.txt').usage, false);
  });
});

describe('parsePerftestHelp', () => {
  it('finds --use_cuda in a CUDA build, and no --use_cuda_dmabuf where the build lacks it', () => {
    assert.deepEqual(parsePerftestHelp(readFixture('perftest', 'help-grep-cuda-mlnx-ofed-5.5-cuda-11.6.txt')), {
      cuda: true,
      cudaBusId: true,
      cudaDmabuf: false,
    });
  });

  it('finds neither in a distribution build without CUDA', () => {
    assert.deepEqual(parsePerftestHelp(readFixture('perftest', 'help-debian12-perftest-4.5-0.17-no-cuda.txt')), {
      cuda: false,
      cudaBusId: false,
      cudaDmabuf: false,
    });
  });
});
