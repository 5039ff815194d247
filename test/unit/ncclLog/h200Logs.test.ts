// The NCCL lines of the project's own H200 runs (test/fixtures/nccl-tests/h200-*.txt: nccl-tests outputs
// with NCCL 2.28.9's INFO lines, two processes on one host and one GPU over NET/Socket): read as a log of
// a one-GPU-per-process job — both processes print `[0]` and name the same busId — with one Problems entry
// per cause, and compared with the same machine's saved outputs without a false NIC warning.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DEFAULT_NCCL } from '../../../src/core/diagnosis';
import { summarizeNcclLog } from '../../../src/core/ncclLog';
import { analyzeNcclLogText } from '../../../src/core/ncclLog/analysis';
import { compareNcclLogWithHost } from '../../../src/core/ncclLog/compare';
import { runProbe } from '../../../src/core/probe/runProbe';
import { offlineRunner } from '../../../src/core/transport/saved';
import { expectOk, readFixture } from '../../support/parsing';
import { FIXTURES } from '../../support/paths';

const TWO_RANKS = [
  'h200-nccl2.28.9-all_reduce-2nodes-socket.txt',
  'h200-nccl2.28.9-all_gather-2nodes-socket.txt',
  'h200-nccl2.28.9-sendrecv-2nodes-socket.txt',
];
const COLLECT = path.join(FIXTURES, 'device/h200-vm-2026-12-04/collect');
const log = (name: string): string => readFixture('nccl-tests', name);
const lineOf = (text: string, n: number): string => text.split('\n')[n - 1];

describe('NCCL logs of the H200 runs (nccl-tests, NCCL 2.28.9, two processes on one GPU over Socket)', () => {
  for (const name of TWO_RANKS) {
    it(`${name}: one GPU (busId 60) with both ranks, eth0 a Socket interface, no GPU Direct RDMA`, () => {
      const s = expectOk(summarizeNcclLog(log(name), name));
      assert.equal(s.ncclVersion, '2.28.9');
      assert.equal(s.verdict, 'no-gdr');
      assert.deepEqual(
        s.hosts.map((h) => [h.name, h.network, h.gpus.map((g) => [g.dev, g.busId, g.ranks])]),
        [['vm', 'Socket', [[0, '60', [0, 1]]]]],
      );
      assert.deepEqual(s.hcas, [{ name: 'eth0', net: 'Socket', gdr: false, dmabuf: null }]);
      assert.equal(s.netConnections.gdrdma, 0);
      assert.ok(s.netConnections.total > 0);
    });
  }

  it('one Problems entry per cause: "No device found", an error as the summary says, every other rank\'s line related', () => {
    const name = TWO_RANKS[0];
    const text = log(name);
    const { marks, summary } = analyzeNcclLogText(text, name);
    assert.ok(summary?.findings.some((f) => f.id === 'nccl-log.no-gdrdma' && f.severity === 'error'));
    const noDevice = marks.filter((m) => m.kind === 'no-rdma-device');
    assert.equal(noDevice.length, 1);
    assert.equal(noDevice[0].severity, 'error');
    assert.match(lineOf(text, noDevice[0].line), /^vm:1121:1121 \[0\] NCCL INFO NET\/IB : No device found\.$/);
    const related = noDevice[0].related.map((r) => lineOf(text, r.line));
    assert.ok(
      related.some((l) => l.startsWith('vm:1122:1122 [0] NCCL INFO NET/IB : No device found.')),
      related.join('\n'),
    );
    // The line after it lists no device ("Using [RO]; OOB eth0"): it is no second "No device found".
    for (const m of marks) assert.doesNotMatch(lineOf(text, m.line), /NET\/IB : Using/);
    assert.ok(marks.length <= 3, marks.map((m) => `${m.line} ${m.kind}`).join('; '));
  });

  it('compared with the same machine (its saved outputs): agrees, with no NIC warning for the Socket interface', async () => {
    const name = TWO_RANKS[0];
    const s = expectOk(summarizeNcclLog(log(name), name));
    const report = await runProbe(offlineRunner(COLLECT), { host: 'h200-vm' });
    const c = compareNcclLogWithHost({ summary: s, logHost: 'vm', host: 'h200-vm', report, nccl: DEFAULT_NCCL });
    assert.deepEqual(
      c.gpus.map((g) => [g.gpu, g.matchedBy, g.gdrAgrees, g.unexpectedNics]),
      [['GPU0', 'busId', true, []]],
    );
    assert.deepEqual(
      c.findings.map((f) => f.id),
      ['nccl.agrees'],
    );
  });
});
