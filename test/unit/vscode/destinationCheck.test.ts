// Add Host says, as the destination is typed, how it reads it: the same parser every connection uses.
import * as assert from 'node:assert/strict';
import { checkDestination } from '../../../src/vscode/ssh/destinationInput';

describe('Add Host: a destination read as it is typed', () => {
  it('user@host:port: the port is a port, not part of the host name', () => {
    assert.deepEqual(checkDestination('root@gpu01:2222'), {
      ok: true,
      message: 'Reads as host gpu01, port 2222, user root; the rest comes from your SSH config.',
    });
    assert.deepEqual(checkDestination('gpu01:2222'), {
      ok: true,
      message: 'Reads as host gpu01, port 2222; the rest comes from your SSH config.',
    });
  });

  it('a port out of range is refused as it is typed', () => {
    assert.deepEqual(checkDestination('gpu01:99999'), { ok: false, message: 'port out of range in "gpu01:99999"' });
    assert.equal(checkDestination('gpu01:0').ok, false);
    assert.equal(checkDestination('gpu01:65535').ok, true);
  });

  it('IPv6: a port only in brackets, and a bare address is said to be one', () => {
    assert.deepEqual(checkDestination('[fe80::1]:2222'), {
      ok: true,
      message: 'Reads as host fe80::1, port 2222; the rest comes from your SSH config.',
    });
    const bare = checkDestination('fe80::1:2222');
    assert.ok(bare.ok && bare.message?.includes('host fe80::1:2222 (an IPv6 address: write [address]:port for a port)'), bare.message);
    assert.equal(checkDestination('[fe80::1').ok, false);
  });

  it('ssh:// URLs, and empty input', () => {
    assert.equal(
      checkDestination('ssh://admin@login1:2200').message,
      'Reads as host login1, port 2200, user admin; the rest comes from your SSH config.',
    );
    assert.deepEqual(checkDestination('  '), { ok: false, message: 'Type a host name or user@host.' });
    assert.deepEqual(checkDestination('  ', true), { ok: true, message: undefined });
  });

  it('a name starting with "-" is refused, as OpenSSH refuses it: it would be read as an option', () => {
    for (const typed of ['-oProxyCommand=x', 'root@-oProxyCommand=x', '-x@gpu01', 'ssh://-oProxyCommand=x'])
      assert.deepEqual(
        checkDestination(typed),
        {
          ok: false,
          message: `A host or user name cannot start with "-": ssh would read ${JSON.stringify(typed)} as an option, and refuses it.`,
        },
        typed,
      );
    assert.equal(checkDestination('gpu-01').ok, true);
    assert.equal(checkDestination('u-x@gpu01').ok, true);
  });

  it('user@:22 says the host is missing; user@ and @host say what is missing', () => {
    assert.deepEqual(checkDestination('user@:22'), {
      ok: false,
      message: '"user@:22" names no host: type one after the @ (user@host or user@host:port).',
    });
    assert.equal(checkDestination('user@').message, '"user@" names no host: type one after the @ (user@host or user@host:port).');
    assert.equal(checkDestination('@gpu01').message, '"@gpu01" names no user before the @: drop the @ or type a user.');
  });

  it('names a shell would interpret are refused as ssh refuses them; a $ in a user name is not', () => {
    for (const typed of ['gpu01;reboot', 'gpu$(id)', 'a,b', "o'brien@gpu01", 'user\\@gpu01'])
      assert.equal(checkDestination(typed).ok, false, typed);
    assert.equal(checkDestination('u$x@gpu01').ok, true);
  });
});
