// The launch of nccl-tests (core/prove/nccl/command.ts): the srun and mpirun lines as they run, every
// value checked before it reaches the script, and the script's own lines read back (run.ts).
import * as assert from 'node:assert/strict';
import { launchLine, launchScript, NcclLaunch } from '../../../src/core/prove/nccl/command';
import { DEFAULT_NCCL_PROVE_OPTIONS } from '../../../src/core/prove/nccl';
import { readLaunchOutput } from '../../../src/core/prove/nccl/run';
import { readFixture } from '../../support/parsing';

const launch = (over: Partial<NcclLaunch> = {}): NcclLaunch => ({
  tag: 'gdrp-0123456789abcdef',
  nodes: ['gpu01', 'gpu02'],
  gpusPerNode: 8,
  binary: '/shared/nccl-tests/build/all_reduce_perf',
  json: true,
  launcherIsFirstNode: false,
  options: DEFAULT_NCCL_PROVE_OPTIONS,
  ...over,
});

describe('nccl-tests launch', () => {
  it("through Slurm: one task per GPU, the GPUs asked for, NCCL's log and ring, -J on rank 0's node", () => {
    assert.equal(
      launchLine(launch()),
      'srun --nodelist=gpu01,gpu02 --nodes=2 --ntasks-per-node=8 --gpus-per-node=8 --label --kill-on-bad-exit=1 --job-name=gdr-doctor-nccl-456789abcdef --time=11 --immediate=30 ' +
        'env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET NCCL_ALGO=Ring /shared/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 -J /tmp/gdr-doctor-nccl-gdrp-0123456789abcdef.json',
    );
    const script = launchScript(launch());
    assert.match(script, /scancel --name=gdr-doctor-nccl-456789abcdef/);
    assert.match(script, /R srun --nodelist='gpu01' --nodes=1 --ntasks=1 .* \/bin\/sh -c 'if \[ -s/);
  });

  it('through mpirun: ranks on every host, tagged output, the environment passed with -x', () => {
    assert.equal(
      launchLine(launch({ options: { ...DEFAULT_NCCL_PROVE_OPTIONS, launcher: 'mpirun', ring: false }, json: false })),
      'mpirun --np 16 -H gpu01:8,gpu02:8 --tag-output --bind-to none --mca plm_rsh_args "-o BatchMode=yes" -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,NET /shared/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1',
    );
  });

  it('refuses a node name, binary or tag that a shell would read as more than a word', () => {
    for (const bad of [
      { nodes: ['gpu01', 'gpu02;reboot'] },
      { nodes: ['gpu01', '$(id)'] },
      { binary: '/x/all_reduce_perf -x' },
      { tag: "gdrp-'x" },
      { nodes: ['gpu01'] },
    ])
      assert.throws(() => launchScript(launch(bad)), /not a|two or more/, JSON.stringify(bad));
  });

  it("reads back what ran: the launcher's exit code, the -J file, and nccl-tests' text beside NCCL's lines", () => {
    const tag = 'gdrp-0123456789abcdef';
    const json = Buffer.from(readFixture('nccl-tests', 'h200-nccl2.28.9-all_reduce-2nodes-socket.json')).toString('base64');
    const text = readFixture('nccl-tests', 'h200-nccl2.28.9-all_reduce-2nodes-socket.txt');
    const out = [`${tag} S`, text, `${tag} X 0`, ...(json.match(/.{1,76}/g) ?? []).map((b) => `${tag} B ${b}`), ''].join('\n');
    const r = readLaunchOutput(
      { stdout: Buffer.from(out), stderr: Buffer.alloc(0), exitCode: 0, timedOut: false, connectionLost: false },
      launch(),
    );
    assert.deepEqual([r.outcome, r.exitCode, r.run?.source, r.run?.results.length, r.log?.verdict], ['ended', 0, 'json', 27, 'no-gdr']);
    assert.equal(r.run?.results[26].out_of_place?.bus_bw, 1.859825);
  });
});
