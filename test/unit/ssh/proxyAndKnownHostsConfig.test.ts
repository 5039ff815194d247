// ProxyCommand / ProxyJump precedence, known_hosts file lists (`none`, `~`, tokens, `${NAME}`),
// HostKeyAlias and the `user@host:port` destination, each held to the real `ssh -G` on the same file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDestination } from '../../../src/core/ssh/destination';
import { ConnectError } from '../../../src/core/ssh/errors';
import { localResolveEnv } from '../../../src/core/ssh/nodeConfigFs';
import { resolveSshConfig } from '../../../src/core/ssh/sshConfig';
import { sshG } from '../../../src/core/ssh/sshG';
import { expandTokens, PROXY_COMMAND_TOKENS } from '../../../src/core/ssh/tokens';
import { assertSameAsSsh } from '../../support/sshG';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-proxycfg-'));
let n = 0;
const conf = (text: string) => {
  const file = path.join(dir, `c${++n}.conf`);
  fs.writeFileSync(file, text);
  return file;
};

after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('ProxyCommand and ProxyJump (checked against ssh -G)', () => {
  it('takes ProxyCommand to the end of the line, comment and quotes included, after a space or "="', async () => {
    const t = await assertSameAsSsh(
      conf('Host a\n  ProxyCommand ssh -W "%h:%p" login # via login\nHost b\n  ProxyCommand=nc %h %p\n'),
      'a',
    );
    assert.equal(t.proxyCommand, 'ssh -W "%h:%p" login # via login');
    assert.equal((await assertSameAsSsh(conf('ProxyCommand=nc %h %p\n'), 'b')).proxyCommand, 'nc %h %p');
  });

  const cases: [string, string | null, string | null][] = [
    ['ProxyJump j1\nProxyCommand nc %h %p\n', 'j1', null],
    ['ProxyCommand nc %h %p\nProxyJump j1\n', null, 'nc %h %p'],
    ['ProxyCommand none\nProxyJump j1\n', null, null],
    ['ProxyCommand none\nProxyCommand nc %h\n', null, null],
    ['ProxyJump none\nProxyJump j1\n', null, null],
    ['ProxyJump none\nProxyCommand nc %h\n', null, 'nc %h'],
    ['ProxyJump j1\nProxyJump j2\n', 'j1', null],
    ['Host gpu*\n  ProxyCommand ssh -W %h:%p login\nHost *\n  ProxyJump bastion\n', null, 'ssh -W %h:%p login'],
  ];
  for (const [text, jump, command] of cases) {
    it(`first of the two wins: ${JSON.stringify(text)}`, async () => {
      const t = await assertSameAsSsh(conf(text), 'gpu01');
      assert.deepEqual([t.proxyJump, t.proxyCommand], [jump, command]);
    });
  }

  it('gives ProxyJump as ssh -G prints it: host:port, numeric hosts in brackets, ssh:// unwrapped', async () => {
    const jumps: [string, string][] = [
      ['j1:2200', 'j1:2200'],
      ['10.1.2.3', '[10.1.2.3]'],
      ['a,u@[fe80::1]:22', 'a,u@[fe80::1]:22'],
      ['a,ssh://u@h:2200', 'a,u@h:2200'],
    ];
    for (const [written, printed] of jumps) {
      assert.equal((await assertSameAsSsh(conf(`ProxyJump ${written}\n`), 'x')).proxyJump, printed);
    }
  });
});

describe('known_hosts files, HostKeyAlias and tokens (checked against ssh -G)', () => {
  it('reads UserKnownHostsFile none and GlobalKnownHostsFile none as no file at all', async () => {
    const t = await assertSameAsSsh(conf('UserKnownHostsFile none\nGlobalKnownHostsFile NONE\n'), 'x');
    assert.deepEqual([t.userKnownHostsFiles, t.globalKnownHostsFiles], [[], []]);
  });

  it('expands ~, every token and ${NAME} in UserKnownHostsFile, and lower-cases HostKeyAlias', async () => {
    const tokens = '~/kh-%k-%n-%h-%C-%L-%l-%i-%u-%r-%p-%d-%%';
    const t = await assertSameAsSsh(
      conf(`Host *\n  HostKeyAlias MyAlias\n  UserKnownHostsFile ${tokens} \${HOME}/kh2\n`),
      'alice@GPU07:2222',
    );
    assert.equal(t.hostKeyAlias, 'myalias');
    // The whole expansion is ssh -G's (above); the readable parts once more, by hand.
    const [host, local] = [os.hostname(), os.userInfo()];
    const expected = [
      `${os.homedir()}/kh-myalias-GPU07-gpu07-`,
      `-${host.split('.')[0]}-${host}-${local.uid}-${local.username}-alice-2222-${os.homedir()}-%`,
    ];
    assert.ok(t.userKnownHostsFiles[0].startsWith(expected[0]) && t.userKnownHostsFiles[0].endsWith(expected[1]), t.userKnownHostsFiles[0]);
    assert.equal(t.userKnownHostsFiles[1], `${os.homedir()}/kh2`);
    assert.equal(
      await assertSameAsSsh(conf('UserKnownHostsFile ~/kh-%k\n'), 'GPU07').then((r) => r.userKnownHostsFiles[0]),
      `${os.homedir()}/kh-GPU07`,
    );
  });

  it('leaves GlobalKnownHostsFile as written: ssh expands only ~ there, when it reads the files', async () => {
    const t = await assertSameAsSsh(conf('GlobalKnownHostsFile ~/gkh /etc/%h\n'), 'x');
    assert.deepEqual(t.globalKnownHostsFiles, ['~/gkh', '/etc/%h']);
  });

  it('stops, as ssh does, at an unknown token or an unset variable instead of using the text as written', async () => {
    for (const bad of ['UserKnownHostsFile ~/kh-%x\n', 'UserKnownHostsFile ${GDR_DOCTOR_SURELY_UNSET}/kh\n', 'HostName %r.example\n']) {
      const file = conf(bad);
      assert.equal(await sshG(parseDestination('x'), file), null, `ssh -G refuses ${bad}`);
      assert.throws(
        () => resolveSshConfig(parseDestination('x'), localResolveEnv(file)),
        (e: unknown) => e instanceof ConnectError && e.step === 'config' && /ssh_config: /.test(e.message),
      );
    }
  });
});

describe('destinations', () => {
  it('reads user@host:port and host:port (the form Add Host suggests), handing ssh the port as -p', async () => {
    const t = await assertSameAsSsh(conf('Host gpu07\n  User bob\n  Port 2200\n'), 'alice@gpu07:2301');
    assert.deepEqual([t.user, t.hostname, t.port], ['alice', 'gpu07', 2301]);
    assert.deepEqual(parseDestination('gpu07:2301'), { host: 'gpu07', user: null, port: 2301 });
  });

  it('reads bracketed addresses with or without a port, and a bare IPv6 address as a host', () => {
    assert.deepEqual(parseDestination('root@[fe80::1]:2222'), { host: 'fe80::1', user: 'root', port: 2222 });
    assert.deepEqual(parseDestination('[10.0.0.1]'), { host: '10.0.0.1', user: null, port: null });
    assert.deepEqual(parseDestination('fe80::1'), { host: 'fe80::1', user: null, port: null });
    assert.deepEqual(parseDestination('ssh://u@h:22'), { host: 'h', user: 'u', port: 22 });
  });

  it('refuses a port that is not one', () => {
    for (const bad of ['h:0', 'h:65536', 'h:22x', '[::1]x', 'u@:22']) assert.throws(() => parseDestination(bad), /port|not a host/, bad);
  });

  it('refuses the host and user names ssh itself refuses on its command line: a leading "-", shell characters', async () => {
    for (const bad of ['-oProxyCommand=x', 'u@-oProxyCommand=x', '-u@h', 'h;id', 'a,b', 'u\\@h']) {
      assert.throws(() => parseDestination(bad), /not a host/, bad);
      assert.equal(await sshG({ host: bad, user: null, port: null }), null, `ssh -G refuses ${bad} too`);
    }
    assert.deepEqual(parseDestination('u$x@h-1'), { host: 'h-1', user: 'u$x', port: null });
    assert.equal((await sshG({ host: 'h-1', user: 'u$x', port: null }))?.user, 'u$x');
  });
});

describe('tokens', () => {
  const ctx = {
    home: '/home/a',
    localUser: 'a',
    localHost: 'ws1.lab.example',
    host: 'gpu01',
    originalHost: 'GPU01',
    user: 'root',
    port: 22,
  };

  it('gives %l the whole local host name and %L its first label, as ssh_config(5) says', () => {
    // This machine's name has no dot, so ssh -G cannot tell the two apart here.
    assert.equal(expandTokens('%l %L', ctx), 'ws1.lab.example ws1');
  });

  it('expands ProxyCommand tokens only, with ${} left to the shell', () => {
    assert.equal(
      expandTokens('exec nc %h %p # %n %r %k %% ${X}', ctx, { tokens: PROXY_COMMAND_TOKENS }),
      'exec nc gpu01 22 # GPU01 root GPU01 % ${X}',
    );
    assert.throws(() => expandTokens('nc %h %d', ctx, { tokens: PROXY_COMMAND_TOKENS }), /unknown token %d/);
    assert.throws(() => expandTokens('nc %h %', ctx, { tokens: PROXY_COMMAND_TOKENS }), /lone "%"/);
  });
});
