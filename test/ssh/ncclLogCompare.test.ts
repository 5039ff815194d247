// `gdr-doctor nccl-log FILE... --host DEST` end to end: the built CLI reads a real NCCL log
// (test/fixtures/nccl-log), diagnoses a simulated GPU host over SSH (test/lab/profiles) and compares
// what gdr-doctor predicts per GPU with what the log shows NCCL did.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { FIXTURES } from '../support/paths';
import { Lab, startTestLab } from '../lab/lab';

const RECORDS = '/tmp/gdr-doctor-lab-nccl-log-compare.records.json';
const PXN = 'gpu-pxn';
const NEEDS_PEERMEM = 'gpu-needs-peermem';
const log = (name: string) => path.join(FIXTURES, 'nccl-log', name);
const NO_GDRDMA = log('ibext-plugin-no-gdrdma-8-gpus-cut.txt');
const INIT = log('roce-8gpu-nccl2.27.5-aws-ofi-plugin-fallback-init-cut.txt');
const CHANNELS = log('roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut.txt');
const SOCKET = log('socket-fallback-no-libibverbs-1-host-cut.txt');

interface GpuJson {
  gpu: string;
  matchedBy: string;
  predicted: string;
  gdrAgrees: boolean | null;
  unexpectedNics: string[];
}
interface Comparison {
  host: string;
  logHost: string;
  gpus: GpuJson[];
  findings: { id: string; severity: string; title: string; detail: string; evidence: string[] }[];
}

let lab: Lab;

async function compare(host: string, ...files: string[]): Promise<Comparison> {
  const r = await runCli(['nccl-log', ...files, '--host', host, '-F', lab.sshConfigPath, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { comparison: Comparison }).comparison;
}

const ids = (c: Comparison) => c.findings.map((f) => `${f.severity} ${f.id}`);

describe('gdr-doctor nccl-log --host: a real NCCL log against a simulated host over SSH', function () {
  this.timeout(120_000);

  before(async () => {
    lab = await startTestLab({
      recordsPath: RECORDS,
      hosts: [
        { name: PXN, profile: 'pxn-port-down' },
        { name: NEEDS_PEERMEM, profile: 'needs-peermem' },
      ],
    });
  });
  after(async () => lab?.stop());

  it('the H100 host where gdr-doctor predicts GDR on every GPU, a log with no GDRDMA anywhere: nccl.gdr-not-used, both sides quoted', async () => {
    const r = await runCli(['nccl-log', NO_GDRDMA, '--host', PXN, '-F', lab.sshConfigPath]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Compared with gpu-pxn \(log host hostname-test; predicted for NCCL 2\.30\.7 \(the log does not name its release\)\):$/m,
    );
    assert.match(
      r.stdout,
      /^ {4}ERROR nccl\.gdr-not-used: NCCL did not use GPU Direct RDMA on GPU0, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7 of gpu-pxn, where gdr-doctor predicts it$/m,
    );
    const c = await compare(PXN, NO_GDRDMA);
    const f = c.findings[0];
    assert.match(f.evidence[0], /^gpu-pxn \(gdr-doctor's model of NCCL 2\.30\.7\): GPU0: GDR via mlx5_0\. GPU0 → mlx5_0:1 over PIX/);
    assert.match(
      f.evidence[1],
      /ibext-plugin-no-gdrdma-8-gpus-cut\.txt:8: hostname-test:980:1265 \[0\] NCCL INFO Channel 01\/0 : 32\[0\] -> 40\[0\] \[send\] via NET\/IBext_v8\/7$/,
    );
  });

  it('the host without nvidia-peermem loaded, where gdr-doctor predicts no GDR, a log with GDRDMA everywhere: nccl.gdr-not-predicted (info)', async () => {
    const c = await compare(NEEDS_PEERMEM, CHANNELS);
    assert.deepEqual(ids(c), ['info nccl.gdr-not-predicted']);
    assert.ok(
      c.gpus.every((g) => g.gdrAgrees === false && g.predicted.startsWith('no GDR')),
      JSON.stringify(c.gpus.map((g) => g.predicted)),
    );
    assert.match(c.findings[0].detail, /The model may be missing something/);
  });

  it("the log's GPUs found by busId on the H100 host; NICs the model does not give them, some not on the host at all: nccl.unexpected-nic", async () => {
    const c = await compare(PXN, INIT, CHANNELS);
    assert.ok(
      c.gpus.every((g) => g.matchedBy === 'busId'),
      JSON.stringify(c.gpus.map((g) => g.matchedBy)),
    );
    const nic = c.findings.find((f) => f.id === 'nccl.unexpected-nic');
    assert.ok(nic, ids(c).join(', '));
    // GPU1's own mlx5_1 has its port down: the model relays it through GPU0 (PXN) to mlx5_0, the log shows mlx5_1 in use.
    assert.deepEqual(c.gpus.find((g) => g.gpu === 'GPU1')?.unexpectedNics, ['mlx5_1']);
    assert.match(nic.detail, /mlx5_8, mlx5_11 are not an RDMA device of gpu-pxn: is the log from this host\?/);
  });

  it('NCCL on sockets, the host has an active InfiniBand port: nccl.socket-fallback', async () => {
    const c = await compare(NEEDS_PEERMEM, SOCKET);
    assert.deepEqual(ids(c), ['error nccl.socket-fallback']);
    assert.match(c.findings[0].title, /^NCCL fell back to TCP sockets on gpu-needs-peermem, which has RDMA ports \(mlx5_0:1/);
  });

  it("a host that cannot be reached: the log's summary still, the reason on stderr, exit 3", async () => {
    const r = await runCli([
      'nccl-log',
      NO_GDRDMA,
      '--host',
      'gdr-doctor-no-such-host.invalid',
      '-F',
      lab.sshConfigPath,
      '--batch',
      '--timeout',
      '10',
    ]);
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stdout, /^hostname-test: GPU Direct RDMA used on 0 of 13 network connections/m);
    assert.match(r.stderr, /^gdr-doctor: gdr-doctor-no-such-host\.invalid: cannot reach/m);
  });
});
