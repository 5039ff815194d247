// Node names printed back through the relay are taken only when they are nodes the run asked for:
// they later become SSH destinations (a fleet's quick fix). And no node can speak for another: with
// pdsh and clush each node's lines carry a key only that node got, so a hostile node that knows the
// run's tag (from its own command line) and its own key still cannot forge another node's stream.
// The hostile nodes run on the REAL pdsh and clush (relayLocal.ts); srun's labelled lines are checked
// as demux reads them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { relayDiagnose } from '../../../src/core/fleet/relay';
import { demux } from '../../../src/core/transport/relay/demux';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { FakeHost, H100_STUBS } from '../probe/fakeHost';
import { localLogin, makeLoginNode } from './relayLocal';

const TAG = 'gdrr-0123456789abcdef';
// The node command is `echo <base64 chunks> | tr -d ' ' | base64 -d | /bin/sh -s`; it decodes to the
// node's key line (G=<key>) and the wrapper, which sets T='<tag>'. A hostile node reads both.
const READ_IDS = [
  `IDS=$(printf '%s' "$C" | sed 's/^echo //; s/ |.*//' | tr -d ' ' | base64 -d)`,
  `T=$(printf '%s\\n' "$IDS" | sed -n "s/^T='\\(.*\\)'$/\\1/p")`,
  `G=$(printf '%s\\n' "$IDS" | sed -n 's/^G=//p')`,
].join('\n');
// Says it started a second time, with its own key, naming two nodes it invents in its step node list.
const SECOND_START = [READ_IDS, `printf '%s.%s B %s n[1-2],evil9\\n' "$T" "$G" "$GDR_NODE"`].join('\n');
// Prints n1's whole stream, fake probe output included, on lines glued after a cut base64 one (as pdsh
// prints a dying node's last line): once with the run's tag alone, once with its own key.
const FORGE_N1 = [
  READ_IDS,
  'FAKE=$(printf "forged probe output" | base64)',
  `printf 'QUJDn1: %s B n1 n[1-2]\\nQUJDn1: %s\\nQUJDn1: %s E 0\\n' "$T" "$FAKE" "$T"`,
  `printf 'QUJDn1: %s.%s B n1 n[1-2]\\nQUJDn1: %s %s\\nQUJDn1: %s.%s E 0\\n' "$T" "$G" "$G" "$FAKE" "$T" "$G"`,
  'sleep 1',
].join('\n');

describe('relay: node names are only those asked for, and no node speaks for another', function () {
  this.timeout(120_000);
  let host: FakeHost;
  const commands = PROBE_COMMANDS.filter((c) => c.id === 'uname');
  before(() => {
    host = makeLoginNode(H100_STUBS);
  });
  after(() => host.cleanup());
  const hostile = (node: string, script: string) => fs.writeFileSync(path.join(host.log, `hostile-${node}`), script);
  afterEach(() => {
    for (const f of fs.readdirSync(host.log).filter((n) => n.startsWith('hostile-'))) fs.rmSync(path.join(host.log, f));
  });

  it('pdsh: a node starting twice, naming others in its step node list, adds no host and is flagged; the others intact', async () => {
    hostile('n2', SECOND_START);
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
    assert.ok(results[0].report?.finished, JSON.stringify(results[0].error));
    assert.deepEqual(
      [results[1].status, results[1].report, results[1].error?.message],
      [
        'unreachable',
        undefined,
        'n2: its stream through pdsh was contested (a second start line claimed its name): nothing it printed is used',
      ],
    );
    assert.deepEqual(refused, [
      'login: n2: its stream through pdsh was contested (a second start line claimed its name): nothing it printed is used',
    ]);
  });

  for (const tool of ['pdsh', 'clush'] as const) {
    it(`${tool}: a node forging another's stream (the run's tag, its own key) is refused, and both are flagged`, async () => {
      hostile('n2', FORGE_N1);
      const refused: string[] = [];
      const results = await relayDiagnose(localLogin(host), {
        tool,
        loginHost: 'login',
        nodes: 'n[1-3]',
        commands,
        onRefusedNode: (l) => refused.push(l),
      });
      const byHost = new Map(results.map((r) => [r.host, r]));
      const n1 = byHost.get('n1');
      const n2 = byHost.get('n2');
      assert.deepEqual([n1?.status, n1?.report, n2?.status, n2?.report], ['unreachable', undefined, 'unreachable', undefined]);
      assert.equal(
        n1?.error?.message,
        `n1: its stream through ${tool} was contested (n2 printed relay lines claiming to be its stream): nothing it printed is used`,
      );
      assert.equal(
        n2?.error?.message,
        `n2: its stream through ${tool} was contested (it printed relay lines claiming to be n1's stream): nothing it printed is used`,
      );
      assert.ok(byHost.get('n3')?.report?.finished, 'n3 intact');
      assert.equal(refused.length, 2);
      assert.ok(!JSON.stringify(results).includes('forged probe output'));
    });
  }

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

  it('srun choosing the nodes itself: two tasks claiming one name, the second is refused and the name flagged', () => {
    const stdout = [` 0: ${TAG} B n1 n[1-2]`, ` 1: ${TAG} B n1 n[1-2]`, ` 1: ${TAG} B n7 n[1-2]`, ''].join('\n');
    const d = demux('slurm', TAG, { stdout: Buffer.from(stdout), stderr: Buffer.alloc(0) });
    assert.deepEqual([...d.nodes.keys()], ['n1', 'n2']);
    assert.deepEqual(d.refused, ['output for node "n1", which another task already reported: refused, not used']);
    assert.deepEqual([...d.contested], [['n1', { why: 'two-tasks', other: 'task 1' }]]);
  });

  it('srun with a node list: a second task claiming a name is refused too, and the name flagged', () => {
    const stdout = [
      ` 0: ${TAG} B n1 n[1-2]`,
      ' 0: QUJD',
      ` 1: ${TAG} B n1 n[1-2]`,
      ' 1: QUJE',
      ` 0: ${TAG} E 0`,
      ` 1: ${TAG} E 0`,
      '',
    ].join('\n');
    const d = demux('slurm', TAG, { stdout: Buffer.from(stdout), stderr: Buffer.alloc(0) }, ['n1', 'n2']);
    assert.deepEqual(d.refused, ['output for node "n1", which another task already reported: refused, not used']);
    assert.deepEqual([...d.contested], [['n1', { why: 'two-tasks', other: 'task 1' }]]);
    assert.equal(d.nodes.get('n1')?.data.bytes().toString(), 'ABC', "the second task's lines never reach n1's stream");
  });
});
