// A fleet node's quick fix goes through the fleet's login node (ssh -J), but never overrides a
// ProxyJump or ProxyCommand the user's ssh_config already gives the node, and never touches the login
// node itself.
import * as assert from 'node:assert/strict';
import { throughJump } from '../../../src/core/ssh/openSsh';
import type { SshTarget } from '../../../src/core/ssh/sshConfig';
import { sshTarget } from '../ssh/sshTarget';

const target = (host: string, proxyJump: string | null = null, proxyCommand: string | null = null) =>
  sshTarget(host, { proxyJump, proxyCommand });

describe('throughJump', () => {
  const reach = { prompts: {} as never, adjustTarget: (t: SshTarget) => ({ ...t, strictHostKeyChecking: 'yes' as const }) };

  it('sends the node through the login node, keeping what the reach already adjusts', () => {
    const adjust = throughJump(reach, 'root@gpu03', 'login').adjustTarget!;
    assert.deepEqual([adjust(target('gpu03')).proxyJump, adjust(target('gpu03')).strictHostKeyChecking], ['login', 'yes']);
  });

  it("keeps the node's own ProxyJump and leaves the login node (the hop) as it is", () => {
    const adjust = throughJump(reach, 'gpu03', 'login').adjustTarget!;
    assert.equal(adjust(target('gpu03', 'bastion,login2')).proxyJump, 'bastion,login2');
    assert.equal(adjust(target('login')).proxyJump, null);
    assert.equal(adjust(target('login')).strictHostKeyChecking, 'yes');
  });

  it("keeps the node's own ProxyCommand: the user's ssh_config says how to reach it", () => {
    const adjust = throughJump(reach, 'gpu03', 'login').adjustTarget!;
    const t = adjust(target('gpu03', null, 'ssh -W %h:%p bastion'));
    assert.deepEqual([t.proxyJump, t.proxyCommand], [null, 'ssh -W %h:%p bastion']);
  });
});
