// The shell command line a ProxyCommand becomes: ssh's `exec` prefix and tokens, and no host or
// user name that a shell would act on (ssh 9.6+ refuses such names given on its command line).
import * as assert from 'node:assert/strict';
import { ConnectError } from '../../../src/core/ssh/errors';
import { proxyCommandLine } from '../../../src/core/ssh/proxyCommand';
import { sshTarget } from './sshTarget';
import type { TokenContext } from '../../../src/core/ssh/tokens';

const target = (proxyCommand: string) =>
  sshTarget('gpu01', { hostname: 'gpu01.cluster', user: 'alice', port: 2222, strictHostKeyChecking: 'yes', proxyCommand });
const tokens = (over: Partial<TokenContext> = {}): TokenContext => ({
  home: '/home/a',
  localUser: 'a',
  localHost: 'ws',
  host: 'gpu01.cluster',
  originalHost: 'gpu01',
  user: 'alice',
  port: 2222,
  ...over,
});
const configError = (e: unknown) => e instanceof ConnectError && e.step === 'config';

describe('ProxyCommand command line', () => {
  it('is `exec` and the command with its tokens expanded, as ssh runs it', () => {
    assert.equal(
      proxyCommandLine(target('ssh -W %h:%p -l %r login # %n %%'), tokens()),
      'exec ssh -W gpu01.cluster:2222 -l alice login # gpu01 %',
    );
  });

  it('refuses a token ProxyCommand does not take', () => {
    assert.throws(
      () => proxyCommandLine(target('nc %h %d'), tokens()),
      (e: unknown) => configError(e) && /ProxyCommand: unknown token %d/.test((e as Error).message),
    );
  });

  it('refuses to put a host or user name a shell would act on into the command', () => {
    for (const over of [{ host: 'gpu01;touch /tmp/x' }, { originalHost: '$(id)' }, { user: 'a`id`' }, { host: '-oProxyCommand=x' }]) {
      assert.throws(() => proxyCommandLine(target('ssh -W %h:%p -l %r %n'), tokens(over)), configError, JSON.stringify(over));
    }
    // A name the command does not use is not looked at.
    assert.equal(proxyCommandLine(target('nc %h %p'), tokens({ user: 'a`id`' })), 'exec nc gpu01.cluster 2222');
  });
});
