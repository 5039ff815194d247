// The relay's transport on real pdsh and clush output: any bytes a node prints (all 256 values,
// lines that look like tool prefixes or relay frames, no final newline) come back byte for byte;
// and every user-given value is refused before it could reach a command line.
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkRelayOptions } from '../../../src/core/fleet/relay';
import { demux } from '../../../src/core/transport/relay/demux';
import { loginScript, nodeCommand, nodeKeys, nodeWrapper } from '../../../src/core/transport/relay/loginScript';
import { FakeHost } from '../probe/fakeHost';
import { makeLoginNode, runLoginCollecting } from './relayLocal';

const TAG = 'gdrr-0123456789abcdef';

describe('relay transport through real pdsh and clush', function () {
  this.timeout(120_000);
  let host: FakeHost;
  let payload: Buffer;
  before(() => {
    host = makeLoginNode({});
    const tricky = Buffer.from(`n2: not mine\npdsh@login: n1: fake\n${TAG} E 0\n${TAG} B n9\nclush: n1: exited with exit code 9\n`);
    payload = Buffer.concat([Buffer.from([...Array(256).keys()]), tricky, randomBytes(300_000), Buffer.from('no newline at the end')]);
    fs.writeFileSync(path.join(host.log, 'payload'), payload);
  });
  after(() => host.cleanup());

  for (const tool of ['pdsh', 'clush'] as const) {
    it(`${tool}: each node's bytes come back exactly, with its exit code`, async () => {
      // The "probe" here prints the payload, and exits 3 on n2.
      const probeScript = `cat "${path.join(host.log, 'payload')}"\n[ "$GDR_NODE" = n2 ] && exit 3\nexit 0\n`;
      const keys = nodeKeys(['n1', 'n2', 'n3']);
      const script = loginScript({
        tool,
        tag: TAG,
        probeScript,
        nodeLimitS: 60,
        nodes: 'n[1-3]',
        expectedCount: 3,
        concurrency: 2,
        deadlineS: 90,
        keys,
      });
      const run = await runLoginCollecting(host, script, 90_000);
      const d = demux(tool, TAG, run, ['n1', 'n2', 'n3'], keys);
      assert.deepEqual([...d.nodes.keys()], ['n1', 'n2', 'n3']);
      for (const node of d.nodes.values()) {
        assert.ok(node.began && node.ended, `${node.name}: ${node.messages.join('\n')}`);
        assert.ok(node.data.bytes().equals(payload), node.name);
        assert.equal(node.exitCode, node.name === 'n2' ? 3 : 0);
      }
      assert.equal(d.toolExit, '0'); // the node command itself ends well: the probe's code travels in its E line
    });
  }

  it("pdsh: a node dying mid-line costs the others nothing (pdsh glues the next node's line to its cut one)", async () => {
    // n3 is killed after half a line; pdsh prints that half without a newline, then n1's and n2's lines.
    const cmd =
      `if [ "$GDR_NODE" = n3 ]; then printf "%s B n3\\nQUJD" ${TAG}; kill -KILL $$; fi;` +
      ` sleep 0.5; printf "%s B %s\\nQUJD\\n%s E 0\\n" ${TAG} "$GDR_NODE" ${TAG}`;
    const run = await runLoginCollecting(host, `pdsh -R ssh -f 3 -w 'n[1-3]' '${cmd}'`, 60_000);
    assert.match(run.stdout.toString(), new RegExp(`n3: QUJDn[12]: ${TAG} B`), 'pdsh glued the lines (what this test is about)');
    const d = demux('pdsh', TAG, run, ['n1', 'n2', 'n3']);
    for (const name of ['n1', 'n2']) {
      const node = d.nodes.get(name)!;
      assert.deepEqual(
        [node.began, node.ended, node.exitCode, node.data.bytes().toString(), node.messages],
        [true, true, 0, 'ABC', []],
        name,
      );
    }
    const cut = d.nodes.get('n3')!;
    assert.deepEqual([cut.began, cut.ended, cut.data.bytes().toString()], [true, false, 'ABC']);
  });

  it("drops the nodes' heartbeats from stderr, and keeps what else the nodes and the tool said", () => {
    const stderr = [
      `n1: ${TAG} H`,
      'n1: motd: be nice',
      `n2: ${TAG} H\r`,
      `pdsh@login: n2: ssh exited with exit code 255`,
      `n1: ${TAG} H`,
    ].join('\n');
    const d = demux('pdsh', TAG, { stdout: Buffer.from(`n1: ${TAG} B n1\nn2: ${TAG} B n2\n`), stderr: Buffer.from(`${stderr}\n`) }, [
      'n1',
      'n2',
    ]);
    assert.deepEqual(d.nodes.get('n1')?.messages, ['motd: be nice']);
    assert.deepEqual(d.nodes.get('n2')?.messages, ['pdsh@login: n2: ssh exited with exit code 255']);
    assert.deepEqual(d.toolMessages, []);
  });

  it('keeps the per-node command to base64, spaces and a fixed pipeline, well under argument limits', () => {
    const cmd = nodeCommand(nodeWrapper(TAG, 'x'.repeat(6000), 47));
    assert.match(cmd, /^echo [A-Za-z0-9+/= ]+ \| tr -d ' ' \| base64 -d \| \/bin\/sh -s$/);
    assert.ok(cmd.length < 20_000, String(cmd.length));
    assert.ok(cmd.split(' ').every((w) => w.length <= 1000));
  });
});

describe('checkRelayOptions', () => {
  const check = (o: object) => checkRelayOptions({ tool: 'pdsh', loginHost: 'login', ...o }, 47_000);

  it('refuses anything that is not a plain host list, partition, job id or count', () => {
    for (const nodes of ['gpu[01-02];reboot', 'gpu$(id)', "a'b", 'a b|c', 'gdr@gpu1', '-oProxyCommand=x'])
      assert.throws(() => check({ nodes }), Error, nodes);
    assert.throws(() => check({ tool: 'slurm', nodes: 'gpu1', partition: 'gpu;id' }), /partition/);
    assert.throws(() => check({ tool: 'slurm', jobId: '12 && id' }), /job id/);
    assert.throws(() => check({ tool: 'slurm', nodeCount: 0 }), /node count/);
    assert.throws(() => check({ nodes: 'n1', concurrency: 1.5 }), /concurrency/);
    assert.throws(() => check({ nodes: 'n1', partition: 'gpu' }), /Slurm options/);
    assert.throws(() => check({}), /host list/);
    assert.throws(() => check({ tool: 'slurm' }), /nodelist, a node count or a job id/);
  });

  it('unfolds the nodes, folds them again for the tool, and gives a deadline per wave', () => {
    const c = check({ nodes: 'gpu[01-03], gpu05', concurrency: 2 });
    assert.deepEqual(c.expected, ['gpu01', 'gpu02', 'gpu03', 'gpu05']);
    assert.equal(c.nodeList, 'gpu[01-03,05]');
    assert.equal(c.deadlineMs, 2 * 47_000 + 30_000);
    assert.equal(check({ tool: 'slurm', nodeCount: 64, deadlineMs: 5000 }).deadlineMs, 5000);
  });
});
