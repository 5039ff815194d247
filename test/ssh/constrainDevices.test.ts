// A Slurm cluster run as GPU clusters run it — task/cgroup with `ConstrainDevices=yes` (cgroup.conf): a
// step opens only the GPU device files of the GPUs it asked for (issue 22 item 13). The lab's nodes are
// real slurmd's with a devices cgroup each (test/lab/slurm.ts, hostinit.sh); a GPU is a char 195 device
// file. Shown first that the lab enforces it, then that a proof through the login node, which asks for the
// nodes' GPUs, measures GPU memory there.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { runCli } from '../support/cli';
import { Lab } from '../lab/lab';
import { startLoginNodeLab } from '../lab/loginNodeLab';

const RECORDS = '/tmp/gdrlab-records-constrain-devices.json';
const NETWORK = { bridge: 'gdrbr22', subnet: 22 };

interface ProofJson {
  via: string | null;
  gpus: { modes: { mode: string; status: string; gbps: number | null }[] }[];
}

describe('a Slurm cluster with ConstrainDevices=yes (real slurmd, devices cgroups)', function () {
  this.timeout(300_000);
  let lab: Lab;

  /** A command on the login node as its user; output and status, whatever they are. */
  function onLogin(command: string): { status: number | null; out: string } {
    const r = spawnSync('ssh', ['-F', lab.sshConfigPath, '-o', 'BatchMode=yes', 'login', command], { encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  }

  before(async () => {
    lab = await startLoginNodeLab({
      recordsPath: RECORDS,
      network: NETWORK,
      nodes: { gpu01: 'healthy', gpu02: 'healthy' },
      constrainDevices: true,
      readyTimeoutMs: 90_000,
    });
  });
  after(async () => {
    await lab?.stop();
  });

  it('a step opens no GPU it did not ask for, and every GPU it asked for', () => {
    const open = 'for g in /run/gdrlab-gpus/nvidia0 /run/gdrlab-gpus/nvidia7; do (: < $g) 2>&1; done; true';
    const without = onLogin(`srun -N1 -w gpu01 sh -c '${open}'`);
    assert.equal(without.status, 0, without.out);
    assert.equal((without.out.match(/Operation not permitted/g) ?? []).length, 2, without.out);
    // Allowed, the files still have no driver behind them: "No such device or address", not EPERM.
    const asked = onLogin(`srun -N1 -w gpu01 --gres=gpu:8 sh -c '${open}'`);
    assert.equal(asked.status, 0, asked.out);
    assert.doesNotMatch(asked.out, /not permitted/, asked.out);
    assert.equal((asked.out.match(/No such device or address/g) ?? []).length, 2, asked.out);
  });

  it('perftest in a step without GPUs stops where CUDA finds no device', () => {
    // Client mode against a server that is not there would only retry: the server side shows it at once
    // after a client connects, so both run in one step, the client on the same node over loopback.
    const r = onLogin(
      "srun -N1 -w gpu01 sh -c 'ib_write_bw -d mlx5_0 --use_cuda=0 -p 23456 & sleep 1; ib_write_bw -d mlx5_0 -p 23456 127.0.0.1 >/dev/null 2>&1; wait'",
    );
    assert.match(r.out, /initializing CUDA\ncuInit\(0\) returned 100/, r.out);
  });

  it('a proof through the login node asks for the GPUs: GPU memory is measured on both nodes', async () => {
    const r = await runCli([
      'prove',
      '-F',
      lab.sshConfigPath,
      '--duration',
      '1',
      'gpu01',
      'gpu02',
      '--via',
      'login',
      '--gpu',
      '0',
      '--json',
    ]);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    const proof = JSON.parse(r.stdout) as ProofJson;
    assert.equal(proof.via, 'login');
    const modes = proof.gpus[0].modes.map((m) => [m.mode, m.status]);
    assert.deepEqual(modes.slice(0, 2), [
      ['host', 'ok'],
      ['peermem', 'ok'],
    ]);
  });
});
