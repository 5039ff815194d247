// Node names printed back through the relay are taken only when they are nodes the run asked for:
// they later become SSH destinations (a fleet's quick fix). A hostile node runs on the REAL pdsh
// (relayLocal.ts) and prints relay lines of its own, with the run's tag read from its own command
// line; srun's labelled lines are checked as demux reads them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { relayDiagnose } from '../../../src/core/fleet/relay';
import { demux } from '../../../src/core/transport/relay/demux';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { FakeHost, H100_STUBS } from '../probe/fakeHost';
import { localLogin, makeLoginNode } from './relayLocal';

const TAG = 'gdrr-0123456789abcdef';
// The node command is `echo <base64 chunks> | tr -d ' ' | base64 -d | /bin/sh -s`; the wrapper it
// decodes to sets T='<tag>'. The hostile node says it started, for itself and two nodes it invents.
const HOSTILE = [
  `T=$(printf '%s' "$C" | sed 's/^echo //; s/ |.*//' | tr -d ' ' | base64 -d | sed -n "s/^T='\\(.*\\)'$/\\1/p")`,
  `printf '%s B %s n[1-2],evil9\\n' "$T" "$GDR_NODE"`,
].join('\n');

describe('relay: node names are only those asked for', function () {
  this.timeout(120_000);
  let host: FakeHost;
  before(() => {
    host = makeLoginNode(H100_STUBS);
    fs.writeFileSync(path.join(host.log, 'hostile-n2'), HOSTILE);
  });
  after(() => host.cleanup());

  it('pdsh: a node naming others in its step node list adds no host', async () => {
    const commands = PROBE_COMMANDS.filter((c) => c.id === 'uname');
    const refused: string[] = [];
    const results = await relayDiagnose(localLogin(host), {
      tool: 'pdsh',
      loginHost: 'login',
      nodes: 'n[1-2]',
      commands,
      onRefusedNode: (l) => refused.push(l),
    });
    assert.deepEqual(
      results.map((r) => r.host),
      ['n1', 'n2'],
    );
    assert.ok(
      results.every((r) => r.report?.finished),
      JSON.stringify(results.map((r) => r.error)),
    );
    assert.deepEqual(refused, []);
  });

  it('srun: a task naming a node not asked for is refused with an error line, and its output dropped', () => {
    const stdout = [
      ` 0: ${TAG} B n1 n[1-2]`,
      ' 0: QUJD',
      ` 0: ${TAG} E 0`,
      ` 1: ${TAG} B evil9 n[1-2],evil9`,
      ' 1: QUJD',
      ` 1: ${TAG} E 0`,
      '',
    ].join('\n');
    const d = demux('slurm', TAG, { stdout: Buffer.from(stdout), stderr: Buffer.from(' 1: sudo make me a sandwich\n') }, ['n1', 'n2']);
    assert.deepEqual([...d.nodes.keys()], ['n1', 'n2']);
    assert.deepEqual([d.nodes.get('n1')?.began, d.nodes.get('n2')?.began], [true, false]);
    assert.deepEqual(d.refused, ['output for node "evil9", which is not among the nodes asked for (n[1-2]): refused, not used']);
    assert.deepEqual(d.toolMessages, [], "the refused task's lines are dropped");
  });

  it('srun without a node list: an allocation by job id is checked against the list squeue printed on the login node', () => {
    const stdout = [`${TAG} L n[1-2]`, ` 0: ${TAG} B n1 n[1-2],evil9`, ` 1: ${TAG} B evil9 n[1-2],evil9`, ''].join('\n');
    const d = demux('slurm', TAG, { stdout: Buffer.from(stdout), stderr: Buffer.alloc(0) });
    assert.deepEqual([...d.nodes.keys()], ['n1']);
    assert.equal(d.refused.length, 1);
  });

  it('srun choosing the nodes itself: two tasks claiming one name, the second is refused', () => {
    const stdout = [` 0: ${TAG} B n1 n[1-2]`, ` 1: ${TAG} B n1 n[1-2]`, ` 1: ${TAG} B n7 n[1-2]`, ''].join('\n');
    const d = demux('slurm', TAG, { stdout: Buffer.from(stdout), stderr: Buffer.alloc(0) });
    assert.deepEqual([...d.nodes.keys()], ['n1', 'n2']);
    assert.deepEqual(d.refused, ['output for node "n1", which another task already reported: refused, not used']);
  });
});
