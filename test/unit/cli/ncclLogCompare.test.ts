// `gdr-doctor nccl-log FILE... --demo | --from DIR | --local | --host DEST`: the log's summary, then
// its comparison with the host, as the built CLI prints it; and the usage errors around it. Over SSH
// against the lab: test/ssh/ncclLogCompare.test.ts.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runCliSync } from '../../support/cli';
import { FIXTURES } from '../../support/paths';

const cli = runCliSync;

const log = (name: string) => path.join(FIXTURES, 'nccl-log', name);
const NO_GDRDMA = log('ibext-plugin-no-gdrdma-8-gpus-cut.txt');
const GDRDMA = log('roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut.txt');
const TWO_HOSTS = log('ib-no-module-2-containers-part2-channels-cut.txt');

describe('gdr-doctor nccl-log with a host to compare with', () => {
  // The demo host as --demo replays it: nvidia_peermem not loaded, so no GDR predicted; the log used GDRDMA throughout.
  it('--demo: the summary, then per GPU predicted against the log, then nccl.gdr-not-predicted', () => {
    const r = cli(['nccl-log', GDRDMA, '--demo']);
    assert.equal(r.status, 0, r.stderr);
    const [summary, comparison] = r.stdout.split('\nCompared with ');
    assert.match(summary, /^NCCL \(version not in the log\), network IB/);
    assert.match(
      comparison,
      /^demo-hgx-h100 \(replayed\) \(log host tpgds-aihub0008; predicted for NCCL 2\.30\.7 \(the log does not name its release\)\):/,
    );
    assert.match(
      comparison,
      /^ {2}GPU0 \(log: GPU 0\): predicted no GDR via mlx5_0, mlx5_2, mlx5_3; log: GDRDMA on 4 of 4 network connections via NET\/IB\/0 — differs$/m,
    );
    assert.match(comparison, /^ {4}info {2}nccl\.gdr-not-predicted: NCCL used GPU Direct RDMA on GPU0, GPU1/m);
  });

  it('--json: one document, the summary with its comparison', () => {
    const r = cli(['nccl-log', NO_GDRDMA, '--demo', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.verdict, 'no-gdr');
    assert.equal(j.comparison.logHost, 'hostname-test');
    assert.deepEqual(
      j.comparison.findings.map((f: { id: string }) => f.id),
      ['nccl.agrees'],
    );
    assert.deepEqual(j.comparison.gpus.map((g: { gpu: string; gdrAgrees: boolean }) => [g.gpu, g.gdrAgrees]).slice(0, 2), [
      ['GPU0', true],
      ['GPU2', true],
    ]);
  });

  it('a log of two hosts needs --log-host, which must name one of them', () => {
    const r = cli(['nccl-log', TWO_HOSTS, '--demo']);
    assert.equal(r.status, 64);
    assert.match(r.stderr, /the log has 2 hosts \(6a5a91752e39, 21346d5cefce\): say which ran on the host with --log-host NAME/);
    const wrong = cli(['nccl-log', TWO_HOSTS, '--demo', '--log-host', 'gpu01']);
    assert.equal(wrong.status, 64);
    assert.match(wrong.stderr, /--log-host: the log has no host "gpu01"; it has 6a5a91752e39, 21346d5cefce/);
    const ok = cli(['nccl-log', TWO_HOSTS, '--demo', '--log-host', '21346d5cefce']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /log host 21346d5cefce/);
  });

  it('refuses options without a host, two hosts at once, and a missing --from folder', () => {
    assert.match(cli(['nccl-log', NO_GDRDMA, '--nccl', '2.21']).stderr, /--nccl goes with --host DEST/);
    assert.match(cli(['nccl-log', NO_GDRDMA, '--batch']).stderr, /--batch goes with --host DEST/);
    const two = cli(['nccl-log', NO_GDRDMA, '--demo', '--host', 'gpu01']);
    assert.equal(two.status, 64);
    assert.match(two.stderr, /compare with one host: --host DEST, --demo, --local or --from DIR/);
    const from = cli(['nccl-log', NO_GDRDMA, '--from', '/nonexistent/gdr-doctor-saved']);
    assert.equal(from.status, 64);
    assert.match(from.stderr, /--from: no folder/);
    assert.match(cli(['nccl-log', NO_GDRDMA, '--host', 'a b']).stderr, /gdr-doctor nccl-log: /);
  });

  it('names the comparison in its --help', () => {
    const help = cli(['nccl-log', '--help']).stdout;
    assert.match(help, /--host DEST \| --demo \| --local \| --from DIR \[--log-host NAME\]/);
    assert.match(help, /nccl\.gdr-not-used, nccl\.gdr-not-predicted, nccl\.unexpected-nic, nccl\.socket-fallback/);
  });
});
