// In VS Code, what ssh would print on stderr (a changed host key let through, an unusable identity
// file) goes to the output channel, one line each after the host, as ssh_config warnings do.
import * as assert from 'node:assert/strict';
import { noPrompts } from '../../../src/core/ssh/prompts';
import { sshReach } from '../../../src/vscode/hosts/diagnoser';

describe("ssh's warnings in VS Code", () => {
  it('go to the log, line by line, keeping every question of the prompts', async () => {
    const logged: string[] = [];
    const prompts = { ...noPrompts, password: async () => 'typed' };
    const settings = { strictHostKeyChecking: 'ask', connectTimeoutMs: 1000 } as Parameters<typeof sshReach>[0];
    const reach = sshReach(settings, prompts, { warn: (m) => logged.push(m) });
    reach.prompts.warn?.('gpu01', ['Load key "/k": Permission denied', 'second line']);
    assert.deepEqual(logged, ['gpu01: Load key "/k": Permission denied', 'gpu01: second line']);
    assert.equal(await reach.prompts.password('u', 'gpu01'), 'typed');
  });
});
