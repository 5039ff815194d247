// Host keys as OpenSSH checks them, each case run through gdr-doctor and through the real ssh on the
// same ssh_config: the key type known_hosts holds is asked for first, `UserKnownHostsFile none` is
// no file, HostKeyAlias is looked up without a port, tokens and `~` in the file names.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { noPrompts, SshPrompts } from '../../src/core/ssh/prompts';
import { Lab, LabHost, startTestLab } from '../lab/lab';
import { hostBlock, ourRun, realSsh, refusal, writeConfig } from '../support/sshCase';

const RECORDS = '/tmp/gdrlab-records-hostkeys.json';

let lab: Lab;
let h: LabHost;
let n = 0;

const keyOf = (line: string) => line.split(' ').slice(1).join(' ');
const knownHosts = (...lines: string[]) => {
  const file = path.join(lab.dir, `kh-${++n}`);
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
};
const config = (lines: string[]) =>
  writeConfig(lab.dir, hostBlock('hk', h, ['User gdr', `IdentityFile ${lab.keys.plain}`, 'IdentitiesOnly yes', 'BatchMode yes', ...lines]));
const counting = () => {
  const p: SshPrompts & { asked: number } = { ...noPrompts, asked: 0, confirmHostKey: async () => (p.asked++, true) };
  return p;
};

describe('host keys, held to the real ssh', function () {
  this.timeout(60_000);

  before(async () => {
    lab = await startTestLab({ recordsPath: RECORDS, hosts: [{ name: 'hk', profile: 'healthy', extraHostKeys: ['ecdsa', 'rsa'] }] });
    h = lab.host('hk');
  });
  after(async () => lab?.stop());

  for (const type of ['ecdsa', 'rsa'] as const) {
    describe(`a host known only by its ${type.toUpperCase()} key`, () => {
      it('is known under StrictHostKeyChecking=yes', async () => {
        const file = config([`UserKnownHostsFile ${knownHosts(h.extraHostKeyLines[type] as string)}`, 'StrictHostKeyChecking yes']);
        assert.equal((await realSsh(file, 'hk')).status, 0, 'the real ssh connects');
        assert.equal(await ourRun(file, 'hk'), 'hk\ngdr\n');
      });

      it('is not asked about under ask, nor re-added under accept-new', async () => {
        for (const mode of ['ask', 'accept-new']) {
          const kh = knownHosts(h.extraHostKeyLines[type] as string);
          const prompts = counting();
          assert.equal(await ourRun(config([`UserKnownHostsFile ${kh}`, `StrictHostKeyChecking ${mode}`]), 'hk', prompts), 'hk\ngdr\n');
          assert.equal(prompts.asked, 0, mode);
          assert.equal(fs.readFileSync(kh, 'utf8'), `${h.extraHostKeyLines[type]}\n`, `${mode}: known_hosts unchanged`);
        }
      });
    });
  }

  describe('UserKnownHostsFile none', () => {
    it('refuses an unknown key in every mode, as there is nowhere to record it (ssh: "Host key verification failed")', async () => {
      for (const mode of ['no', 'accept-new', 'ask', 'yes']) {
        const file = config(['UserKnownHostsFile none', 'GlobalKnownHostsFile none', `StrictHostKeyChecking ${mode}`]);
        assert.equal((await realSsh(file, 'hk')).status, 255, `the real ssh refuses under ${mode}`);
        const prompts = counting();
        const e = await refusal(ourRun(file, 'hk', prompts));
        assert.equal(e.step, 'host-key', mode);
        assert.match(e.message, /no known_hosts file to record it in \(UserKnownHostsFile none\)/);
        assert.equal(prompts.asked, 0);
      }
    });

    it('never reads or writes a file named "none" in the current folder', async () => {
      const cwd = process.cwd();
      const planted = fs.mkdtempSync(path.join(lab.dir, 'cwd-'));
      fs.writeFileSync(path.join(planted, 'none'), `${h.hostKeyLine}\n`);
      process.chdir(planted);
      try {
        const strict = config(['UserKnownHostsFile none', 'GlobalKnownHostsFile none', 'StrictHostKeyChecking yes']);
        assert.equal((await refusal(ourRun(strict, 'hk'))).step, 'host-key', 'the planted ./none does not make the key known');
        await refusal(ourRun(config(['UserKnownHostsFile none', 'GlobalKnownHostsFile none', 'StrictHostKeyChecking accept-new']), 'hk'));
        assert.equal(fs.readFileSync(path.join(planted, 'none'), 'utf8'), `${h.hostKeyLine}\n`, 'nothing was written to ./none');
      } finally {
        process.chdir(cwd);
      }
    });

    it('still checks against GlobalKnownHostsFile, with ~ expanded there', async () => {
      const homeDir = fs.mkdtempSync(path.join(os.homedir(), '.gdr-doctor-test-'));
      try {
        fs.writeFileSync(path.join(homeDir, 'global'), `${h.hostKeyLine}\n`);
        const file = config([
          'UserKnownHostsFile none',
          `GlobalKnownHostsFile ~/${path.basename(homeDir)}/global`,
          'StrictHostKeyChecking yes',
        ]);
        assert.equal((await realSsh(file, 'hk')).status, 0, 'the real ssh connects');
        assert.equal(await ourRun(file, 'hk'), 'hk\ngdr\n');
      } finally {
        fs.rmSync(homeDir, { recursive: true, force: true });
      }
    });
  });

  it('records a new key in the UserKnownHostsFile its tokens name, as ssh does', async () => {
    const kh = (who: string) => path.join(lab.dir, `${who}-%n-%p-%r-%k`);
    assert.equal((await realSsh(config([`UserKnownHostsFile ${kh('real')}`, 'StrictHostKeyChecking accept-new']), 'hk')).status, 0);
    await ourRun(config([`UserKnownHostsFile ${kh('ours')}`, 'StrictHostKeyChecking accept-new']), 'hk');
    for (const who of ['real', 'ours']) assert.ok(fs.existsSync(path.join(lab.dir, `${who}-hk-${h.port}-gdr-hk`)), `${who} wrote its file`);
  });

  describe('HostKeyAlias', () => {
    it('is looked up as it is, without the port', async () => {
      const withAlias = (line: string) =>
        config([`UserKnownHostsFile ${knownHosts(line)}`, 'HostKeyAlias gpu-alias', 'StrictHostKeyChecking yes']);
      const plain = withAlias(`gpu-alias ${keyOf(h.hostKeyLine)}`);
      assert.equal((await realSsh(plain, 'hk')).status, 0, 'the real ssh knows it under the bare alias');
      assert.equal(await ourRun(plain, 'hk'), 'hk\ngdr\n');
      const withPort = withAlias(`[gpu-alias]:${h.port} ${keyOf(h.hostKeyLine)}`);
      assert.equal((await realSsh(withPort, 'hk')).status, 255, 'the real ssh does not look for [alias]:port');
      assert.equal((await refusal(ourRun(withPort, 'hk'))).step, 'host-key');
    });

    it('is recorded without the port under accept-new', async () => {
      const [real, ours] = [knownHosts(), knownHosts()];
      const file = (kh: string) =>
        config([`UserKnownHostsFile ${kh}`, 'HostKeyAlias gpu-alias', 'StrictHostKeyChecking accept-new', 'HashKnownHosts no']);
      assert.equal((await realSsh(file(real), 'hk')).status, 0);
      await ourRun(file(ours), 'hk');
      const hosts = (f: string) =>
        fs
          .readFileSync(f, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ')[0]);
      assert.deepEqual(hosts(ours), ['gpu-alias']);
      assert.deepEqual(hosts(real).slice(0, 1), ['gpu-alias']);
    });
  });

  it('takes a key known for the bare host name on another port, as ssh does', async () => {
    const file = config([`UserKnownHostsFile ${knownHosts(`${h.address} ${keyOf(h.hostKeyLine)}`)}`, 'StrictHostKeyChecking yes']);
    assert.equal((await realSsh(file, 'hk')).status, 0, 'the real ssh connects');
    assert.equal(await ourRun(file, 'hk'), 'hk\ngdr\n');
  });
});
