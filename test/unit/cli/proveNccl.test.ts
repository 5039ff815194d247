// The built CLI's `parse nccl-tests` and `prove --nccl` usage, as a user runs them: exit statuses,
// messages, --json in nccl-tests' own field names. (Runs against lab nodes: test/ssh/proveNccl.test.ts.)
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCliSync } from '../../support/cli';
import { FIXTURES } from '../../support/paths';

const fixture = (name: string) => path.join(FIXTURES, 'nccl-tests', name);

describe('gdr-doctor parse nccl-tests / prove --nccl (the built CLI)', () => {
  it("parses a pasted output into nccl-tests' JSON fields: ranks, results with out_of_place/in_place, the average", () => {
    const r = runCliSync(['parse', 'nccl-tests', fixture('nccl-tests-290-h100-ndr-2nodes-srun.txt'), '--json']);
    assert.equal(r.status, 0, r.stderr);
    const run = JSON.parse(r.stdout) as {
      devices: { rank: number; hostname: string; device_hex: string }[];
      results: { size: number; redop: string; root: number; out_of_place: { bus_bw: number; nwrong: number | null } }[];
      average_bus_bandwidth: number;
    };
    assert.deepEqual(run.devices[15], {
      rank: 15,
      group: 0,
      pid: 541705,
      hostname: 'node007',
      device: 7,
      device_hex: '0xc1',
      device_info: 'NVIDIA H100 80GB HBM3',
    });
    assert.deepEqual(run.results[10].out_of_place, { time: 103530, alg_bw: 82.97, bus_bw: 155.57, nwrong: null });
    assert.equal(run.average_bus_bandwidth, 142.735);
  });

  it('reads a -J file as well, from standard input', () => {
    const r = runCliSync(['parse', 'nccl-tests', '-'], fs.readFileSync(fixture('h200-nccl2.28.9-sendrecv-2nodes-socket.json'), 'utf8'));
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^sendrecv_perf \(NCCL 2\.28\.9\): 2 ranks listed on 1 nodes \(vm\)$/m);
    assert.match(r.stdout, /largest size 64 MiB: busbw 1\.51 GB\/s \(out-of-place\)/);
  });

  it('says which row was cut, and exits 2 on text that is no nccl-tests output', () => {
    const cut = runCliSync(['parse', 'nccl-tests', fixture('nccl-tests-249-markdown-no-hash-cut.txt')]);
    assert.equal(cut.status, 0);
    assert.match(cut.stdout, /line 16: a row cut off, not read: it ends after 4 of 13 columns/);
    const none = runCliSync(['parse', 'nccl-tests', path.join(FIXTURES, 'topo/seed-xeon-gold-5318y-8gpu-3nic.txt')]);
    assert.equal(none.status, 2);
    assert.match(none.stderr, /:1: no nccl-tests result table/);
  });

  it('prove --nccl: usage errors exit 64 before anything connects; --nccl VERSION keeps its meaning', () => {
    for (const args of [
      ['prove', '--nccl', 'gpu01'],
      ['prove', '--nccl', 'gpu01', 'gpu02', '--with', 'slurm'],
      ['prove', '--nccl', 'gpu01', 'gpu02', '--op', 'broadcast'],
      ['prove', '--nccl', 'gpu01', 'gpu02', '--with', 'pdsh', '--via', 'login'],
    ]) {
      const r = runCliSync(args);
      assert.equal(r.status, 64, `${args.join(' ')}: ${r.stderr}`);
    }
    const help = runCliSync(['prove', '--nccl', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: gdr-doctor prove --nccl <node> <node>…/);
    assert.match(runCliSync(['prove', '--help']).stdout, /gdr-doctor prove --nccl --help/);
    assert.match(runCliSync(['prove', 'gpu01', '--nccl', '2.21', '--help']).stdout, /^Usage: gdr-doctor prove <host> \[<peer-host>\]/);
  });
});
