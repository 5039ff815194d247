// The host-side scripts of a proof: perftest's flags in the order perftest needs, values checked
// before they go into a script, and the script's own lines read back (through srun's labels too).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { loginScript } from '../../../src/core/prove/slurm';
import type { Measurement } from '../../../src/core/prove/plan';
import { commandLine, loopbackScript, perftestArgs, scriptEvents, slurmNodeScript } from '../../../src/core/prove/scripts';
import { testEndpoint } from './testEndpoint';

const endpoint = testEndpoint({ gpu: 'GPU3', gpuIndex: 3, device: 'mlx5_3', numaNode: 1 });
const m = (over: Partial<Measurement> = {}): Measurement => ({
  id: 'm1',
  gpu: 'GPU3',
  mode: 'dmabuf',
  client: endpoint,
  server: endpoint,
  limitS: 50,
  ...over,
});
const ctx = { tag: 'gdrp-0123456789abcdef', sizeBytes: 65536, durationS: 5 };

describe('proof scripts', () => {
  it('gives --use_cuda before --use_cuda_dmabuf (perftest checks the latter when it reads it)', () => {
    assert.deepEqual(perftestArgs({ endpoint, cuda: 'dmabuf', sizeBytes: 65536, durationS: 5 }), [
      '-d',
      'mlx5_3',
      '-i',
      '1',
      '-s',
      '65536',
      '-D',
      '5',
      '-F',
      '--report_gbits',
      '--use_cuda=3',
      '--use_cuda_dmabuf',
    ]);
    assert.deepEqual(
      perftestArgs({ endpoint, cuda: 'host', sizeBytes: 65536, durationS: 5 }).filter((a) => a.includes('cuda')),
      [],
    );
  });

  it('shows the command as it runs, pinned to the NUMA node', () => {
    assert.equal(
      commandLine({ endpoint, cuda: 'peermem', sizeBytes: 65536, durationS: 5 }, 24000, 'gpu-b'),
      'numactl --cpunodebind=1 --membind=1 ib_write_bw -d mlx5_3 -i 1 -s 65536 -D 5 -F --report_gbits --use_cuda=3 -p 24000 gpu-b',
    );
  });

  it('refuses a value that is not what it claims before it reaches a script', () => {
    assert.throws(
      () => perftestArgs({ endpoint: { ...endpoint, device: 'mlx5_0; reboot' }, cuda: 'host', sizeBytes: 1, durationS: 1 }),
      /not a valid RDMA device name/,
    );
    assert.throws(() => slurmNodeScript(ctx, [{ m: m(), port: 20000 }], '$(reboot)'), /not a valid node name/);
    assert.throws(() => loopbackScript(ctx, m({ limitS: 0 }), [20000]), /time limit must be a whole number/);
    assert.throws(() => loopbackScript(ctx, m(), [80]), /TCP port must be a whole number from 1024/);
  });

  it("reads its lines back: ports, listening, each side's output in base64 chunks, through srun labels", () => {
    const out = Buffer.from("Couldn't allocate MR with error=14\n").toString('base64');
    const text = [
      `${ctx.tag} P m1 24001`,
      `${ctx.tag} L m1`,
      `1: ${ctx.tag} O m1 client ${out.slice(0, 20)}`,
      `0: noise from a login shell ${ctx.tag}x`,
      `1: ${ctx.tag} O m1 client ${out.slice(20)}`,
      `1: ${ctx.tag} R m1 client 1`,
      `${ctx.tag} R m2 server`,
      `${ctx.tag} R m1 server 0`,
      `${ctx.tag} R m1 cli`,
    ].join('\n');
    assert.deepEqual(scriptEvents(`${text}\n`, ctx.tag), [
      { kind: 'P', id: 'm1', port: 24001 },
      { kind: 'L', id: 'm1' },
      { kind: 'R', id: 'm1', role: 'client', exitCode: 1, output: "Couldn't allocate MR with error=14\n" },
      { kind: 'R', id: 'm2', role: 'server', exitCode: null, output: '' },
      { kind: 'R', id: 'm1', role: 'server', exitCode: 0, output: '' },
    ]);
  });

  it('ignores a line cut off at the end of the stream', () => {
    assert.deepEqual(scriptEvents(`${ctx.tag} P m1 24001\n${ctx.tag} R m1 client 0`, ctx.tag), [{ kind: 'P', id: 'm1', port: 24001 }]);
  });
});

describe('the GPU by its PCI address, and the Slurm step asking for GPUs', () => {
  it('--use_cuda_bus_id=<address> where perftest takes it (before --use_cuda_dmabuf), --use_cuda=N otherwise; a bad address refused', () => {
    const byBus = { ...endpoint, gpuBusId: '0000:5d:00.0', cudaByBusId: true };
    assert.deepEqual(perftestArgs({ endpoint: byBus, cuda: 'dmabuf', sizeBytes: 1 << 20, durationS: 5 }).slice(-2), [
      '--use_cuda_bus_id=0000:5d:00.0',
      '--use_cuda_dmabuf',
    ]);
    assert.deepEqual(
      perftestArgs({ endpoint: { ...byBus, cudaByBusId: false }, cuda: 'peermem', sizeBytes: 1 << 20, durationS: 5 }).slice(-1),
      ['--use_cuda=3'],
    );
    assert.throws(
      () => perftestArgs({ endpoint: { ...byBus, gpuBusId: '0000:5d:00.0;id' }, cuda: 'peermem', sizeBytes: 1, durationS: 5 }),
      /not a valid GPU PCI address/,
    );
  });

  it("srun asks for the nodes' GPUs (--gres=gpu:N, the fewer of the two) where sinfo shows GPU GRES and a GPU mode runs", () => {
    const nodes = { login: 'login1', host: 'gpu01', peer: 'gpu02' };
    const script = loginScript(ctx, nodes, [{ m: m({ mode: 'peermem' }), port: 20000 }], 60);
    const gp = script.split('\n').find((l) => l.startsWith('GP=')) ?? '';
    const run = (sinfo: string) =>
      spawnSync('/bin/sh', ['-c', `sinfo() { printf '%s\\n' ${sinfo}; }\n${gp}\necho "[$GP]"`], { encoding: 'utf8' }).stdout.trim();
    assert.equal(run(`'gpu:h100:8(S:0-1)' 'gpu:4,nvme:1'`), '[4]');
    assert.equal(run(`'(null)' '(null)'`), '[]');
    assert.match(script, /--ntasks-per-node=1 \$\{GP:\+--gres=gpu:\$GP\} --label/);
    assert.match(loginScript(ctx, nodes, [{ m: m({ mode: 'host' }), port: 20000 }], 60), /^GP=$/m);
  });
});
