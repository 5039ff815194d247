// runProof on diagnosed hosts with an executor that hands back real perftest outputs (the fixtures):
// which measurements run in which order, what is refused before anything runs, verdicts.
import * as assert from 'node:assert/strict';
import { DEFAULT_PROVE_OPTIONS, DiagnosedHost, Executor, ProofReport, ProveOptions, runProof } from '../../../src/core/prove';
import type { SideRuns } from '../../../src/core/prove/outcome';
import type { Measurement } from '../../../src/core/prove/plan';
import { fixture } from '../diagnosis/hostReport';
import { healthyHost, perftestCheck, pickedAs } from './proofHosts';
import { joinedRegExp } from '../../support/joinedRegExp';

const OUTPUTS: Record<string, { client: string; server: string }> = {
  host: { client: 'perftest/write-bw-host-ib-t9k-client-all-sizes.txt', server: 'perftest/write-bw-host-ib-t9k-server-all-sizes.txt' },
  peermem: {
    client: 'perftest/write-bw-cuda-a100-ib-t9k-client-all-sizes.txt',
    server: 'perftest/write-bw-cuda-a100-ib-t9k-server-all-sizes.txt',
  },
  dmabuf: {
    client: 'perftest/write-bw-cuda-dmabuf-h200-roce-client-all-sizes.txt',
    server: 'perftest/write-bw-cuda-a100-ib-t9k-server-all-sizes.txt',
  },
};

/** Answers each measurement with the recorded outputs of its mode; records what it was asked to run. */
function replaying(ran: Measurement[], override: (m: Measurement) => SideRuns | null = () => null): Executor {
  return async (measurements, done) => {
    for (const m of measurements) {
      ran.push(m);
      const o = OUTPUTS[m.mode];
      done(
        m,
        override(m) ?? {
          client: { exitCode: 0, output: pickedAs(fixture(o.client), m.client.gpuBusId) },
          server: { exitCode: 0, output: pickedAs(fixture(o.server), m.server.gpuBusId) },
          command: `ib_write_bw … ${m.mode}`,
        },
      );
    }
  };
}

async function proof(host: DiagnosedHost, options: Partial<ProveOptions>, execute: Executor, confirm = true): Promise<ProofReport> {
  return runProof({ host, peer: null, options: { ...DEFAULT_PROVE_OPTIONS, ...options }, execute, confirmBusy: async () => confirm });
}

describe('runProof', () => {
  it('runs host memory first, then peermem, per GPU; host memory once per pair of ports', async () => {
    const ran: Measurement[] = [];
    const r = await proof(await healthyHost(), { gpus: [0, 1, 5], modes: ['host', 'peermem'] }, replaying(ran));
    assert.equal(r.status, 'measured');
    // GPU0 and GPU1 share mlx5_0 (looped back on itself): one host-memory run for both.
    assert.deepEqual(
      ran.map((m) => `${m.gpu} ${m.mode} ${m.client.device}>${m.server.device}`),
      [
        'GPU0 host mlx5_0>mlx5_0',
        'GPU0 peermem mlx5_0>mlx5_0',
        'GPU1 peermem mlx5_0>mlx5_0',
        'GPU5 host mlx5_1>mlx5_2',
        'GPU5 peermem mlx5_1>mlx5_2',
      ],
    );
    const gpu1 = r.gpus.find((g) => g.gpu === 'GPU1');
    assert.equal(gpu1?.modes[0].sharedFrom, 'GPU0');
    // Recordings of a 100 Gb/s link on a 200 Gb/s port: 49 % and 40 %, below the 80 % floor of "works".
    assert.equal(
      gpu1?.verdict,
      'GPUDirect RDMA works, but at 40 % of line rate with peermem (host memory: 49 %; "works" needs 80 % at 1 MiB messages or more): ' +
        'check the link width and PCIe generation of the GPU and the NIC (pcie.link-degraded), NUMA pinning, and ACS on the switch between them; ' +
        'topo.nic-far: GPU0, GPU1, GPU2, GPU3, GPU4, GPU5, GPU6, GPU7: nearest usable NIC is PHB/SYS; NCCL 2.30.7 will not use GPUDirect RDMA for them',
    );
    assert.deepEqual([gpu1?.tone, gpu1?.floor], ['warning', 'below']);
    // GPU5's 100 Gb/s RoCE port: host memory 98 %, GPU memory 81 %: at the floor, "works", 18 % below host memory.
    const gpu5 = r.gpus.find((g) => g.gpu === 'GPU5');
    assert.deepEqual([gpu5?.floor, gpu5?.tone], ['met', 'warning']);
    assert.match(
      gpu5?.verdict ?? '',
      /^GPUDirect RDMA works at 81 % of line rate with peermem \(host memory: 98 %\): GPU memory is 18 % slower/,
    );
  });

  it('names the GPU by its PCI address where perftest takes it, and fails a mode whose own "PCIe address" line is another GPU\'s', async () => {
    const ran: Measurement[] = [];
    const r = await proof(
      await healthyHost(),
      { gpus: [5], modes: ['host', 'peermem'] },
      // The recordings as printed: perftest picked the GPU at D5:00, not GPU5's 0000:ab:00.0.
      replaying(ran, (m) => ({
        client: { exitCode: 0, output: fixture(OUTPUTS[m.mode].client) },
        server: { exitCode: 0, output: fixture(OUTPUTS[m.mode].server) },
        command: 'ib_write_bw …',
      })),
    );
    assert.equal(ran[1].client.gpuBusId, '0000:ab:00.0');
    assert.equal(ran[1].client.cudaByBusId, true);
    const peermem = r.gpus[0].modes.find((m) => m.mode === 'peermem');
    assert.equal(peermem?.status, 'failed');
    assert.match(
      peermem?.reason ?? '',
      /^perftest on gpu-a used the GPU at PCIe D5:00 \(its own "PCIe address" line\), not GPU5 at 0000:ab:00\.0/,
    );
  });

  it('with messages under 1 MiB the floor is not applied, and "works" is not said', async () => {
    // A real 64 KiB run (Broadcom 400 GbE, host memory) stands in for every mode.
    const small = fixture('perftest/write-bw-host-bnxt-roce-400g-duration-rdma-cm-client.txt');
    const r = await proof(
      await healthyHost(),
      { gpus: [5], modes: ['host', 'peermem'], sizeBytes: 65536 },
      replaying([], () => ({ client: { exitCode: 0, output: small }, server: { exitCode: 0, output: '' }, command: 'ib_write_bw …' })),
    );
    assert.equal(r.gpus[0].floor, 'small-messages');
    assert.match(r.gpus[0].verdict, /with 65536-byte messages: below 1 MiB the 80 % floor does not apply/);
  });

  it('pins each side to a NUMA node and says where it came from', async () => {
    const ran: Measurement[] = [];
    const r = await proof(await healthyHost(), { gpus: [5], modes: ['host'] }, replaying(ran));
    assert.deepEqual([ran[0].client.numaNode, ran[0].client.numaSource], [1, 'gpu']);
    assert.ok(
      r.gpus[0].notes.includes("gpu-a: mlx5_1 pinned to NUMA node 1, the GPU's (the NIC's was not read)"),
      r.gpus[0].notes.join('\n'),
    );
  });

  it('refuses, running nothing, where ib_write_bw is missing, naming the package', async () => {
    const ran: Measurement[] = [];
    const host = await healthyHost('gpu-a', {
      perftest: perftestCheck({ ibWriteBw: null }),
      'os-release': fixture('os-release/ubuntu-22.04.5.txt'),
    });
    const r = await proof(host, {}, replaying(ran));
    assert.equal(r.status, 'refused');
    assert.deepEqual(ran, []);
    assert.match(
      r.refusals[0],
      joinedRegExp([
        /^gpu-a: perftest's ib_write_bw is not installed \(not on the login PATH\)/,
        /: install it with `apt install perftest` \(Ubuntu 22\.04\.5 LTS\); distribution packages are built without CUDA/,
      ]),
    );
  });

  it('refuses the GPU modes of a perftest without CUDA, and runs host memory alone', async () => {
    const noCuda = await healthyHost('gpu-a', {
      perftest: perftestCheck({}, fixture('perftest/help-debian12-perftest-4.5-0.17-no-cuda.txt')),
    });
    const refused = await proof(noCuda, {}, replaying([]));
    assert.match(refused.refusals.join('\n'), /built without CUDA/);
    const hostOnly = await proof(noCuda, { gpus: [5], modes: ['host'] }, replaying([]));
    assert.deepEqual(
      hostOnly.gpus[0].modes.map((m) => [m.mode, m.status, m.gbps]),
      [['host', 'ok', 98.38]],
    );
    assert.equal(hostOnly.gpus[0].verdict, 'RDMA from host memory works at 98 % of line rate (GPU memory not measured)');
  });

  it('skips dmabuf where the perftest has no --use_cuda_dmabuf', async () => {
    const r = await proof(await healthyHost(), { gpus: [5] }, replaying([]));
    const dmabuf = r.gpus[0].modes.find((m) => m.mode === 'dmabuf');
    assert.equal(dmabuf?.status, 'skipped');
    assert.match(dmabuf?.reason ?? '', /has no --use_cuda_dmabuf/);
  });

  it('asks before measuring busy GPUs, and runs nothing without a yes', async () => {
    const busy = await healthyHost('gpu-a', { 'smi-q': fixture('smi-q/t4-1gpu-vm-passthrough-bar1-256mib-driver530.txt') });
    const asked: string[] = [];
    const ran: Measurement[] = [];
    const r = await runProof({
      host: busy,
      peer: null,
      options: { ...DEFAULT_PROVE_OPTIONS, gpus: [0] },
      execute: replaying(ran),
      confirmBusy: async (b) => (asked.push(...b.map((x) => `${x.gpu} ${x.processes.map((p) => p.name).join()}`)), false),
    });
    assert.deepEqual(asked, ['GPU0 nvidia-cuda-mps-server']);
    assert.equal(r.status, 'refused');
    assert.deepEqual(ran, []);
  });

  it("reports a failed mode with perftest's own line, and what explains it", async () => {
    const fail = (m: Measurement): SideRuns | null =>
      m.mode === 'peermem'
        ? {
            client: { exitCode: 1, output: fixture('perftest/write-bw-cuda-mr-failure-error14-excerpt.txt') },
            server: { exitCode: 1, output: fixture('perftest/write-bw-cuda-mr-failure-k80-server.txt') },
            command: 'x',
          }
        : null;
    const r = await proof(await healthyHost(), { gpus: [5], modes: ['host', 'peermem'] }, replaying([], fail));
    const peermem = r.gpus[0].modes[1];
    assert.deepEqual([peermem.status, peermem.reason], ['failed', "Couldn't allocate MR with error=14"]);
    assert.ok(
      peermem.explainedBy.includes('dmabuf.available: dma-buf can carry GPUDirect RDMA: the peer-memory module is optional'),
      peermem.explainedBy.join('\n'),
    );
    assert.deepEqual([r.gpus[0].tone, r.gpus[0].verdict], ['error', "peermem mode failed: Couldn't allocate MR with error=14"]);
  });

  it('marks a side stopped by the remote timeout (exit 124) as timed out, and what did not run as cancelled', async () => {
    const controller = new AbortController();
    const stopped: Executor = async (ms, done, signal) => {
      const m = ms[0];
      done(m, { client: { exitCode: 124, output: '' }, server: { exitCode: 124, output: '' }, command: 'x' });
      controller.abort();
      if (signal?.aborted) return;
    };
    const r = await runProof({
      host: await healthyHost(),
      peer: null,
      options: { ...DEFAULT_PROVE_OPTIONS, gpus: [5], modes: ['host', 'peermem'], timeoutS: 9 },
      execute: stopped,
      confirmBusy: async () => true,
      signal: controller.signal,
    });
    assert.equal(r.status, 'cancelled');
    assert.deepEqual(
      r.gpus[0].modes.map((m) => [m.status, m.reason]),
      [
        ['timed-out', 'stopped at its deadline (9 s per side)'],
        ['cancelled', 'not run: cancelled before it started'],
      ],
    );
  });
});
