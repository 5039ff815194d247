// ProxyCommand as OpenSSH runs it, through a login node with the real OpenSSH client as the proxy
// (`ProxyCommand ssh -W %h:%p login`), next to the real ssh on the same ssh_config; and the
// `host:port` forms: a ProxyJump hop and the `user@host:port` destination Add Host suggests.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Lab, LabHost, startTestLab } from '../lab/lab';
import { pidsWhere } from '../lab/procs';
import { hostBlock, openVia, ourRun, realSsh, refusal, writeConfig } from '../support/sshCase';
import { until } from '../support/until';

// Our own lab records and network: other suites and helpers run labs of their own.
const RECORDS = '/tmp/gdrlab-records-proxy-command.json';
const NETWORK = { bridge: 'gdrbr14', subnet: 14 };

let lab: Lab;
let login: LabHost, gpu: LabHost, loopback: LabHost;

const common = () => [
  'User gdr',
  `IdentityFile ${lab.keys.plain}`,
  'IdentitiesOnly yes',
  `UserKnownHostsFile ${lab.knownHostsPath}`,
  'StrictHostKeyChecking yes',
  'BatchMode yes',
];
const loginBlock = () => hostBlock('pc-login', login, common());

/** ssh_config with the login node and `pc-gpu` reached by `proxyCommand` (`CFG` stands for this file). */
function viaCommand(proxyCommand: string): string {
  const file = writeConfig(lab.dir, '');
  fs.writeFileSync(file, loginBlock() + hostBlock('pc-gpu', gpu, [...common(), `ProxyCommand ${proxyCommand.replace(/CFG/g, file)}`]));
  return file;
}

/** sshd lines of logins as gdr on `h`, with the address each came from. */
const loginsFrom = (h: LabHost) =>
  fs
    .readFileSync(h.sshdLogPath, 'utf8')
    .split('\n')
    .filter((l) => /^Accepted publickey for gdr from /.test(l))
    .map((l) => l.split(' ')[5]);

/** Local processes whose command line names `text` (the ProxyCommand's own config file). */
function processesNaming(text: string): number[] {
  return pidsWhere((p) => fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text));
}

describe('ProxyCommand and host:port forms, next to the real ssh', function () {
  this.timeout(60_000);

  before(async () => {
    lab = await startTestLab({
      recordsPath: RECORDS,
      network: NETWORK,
      hosts: [
        { name: 'pc-login', profile: 'no-gpu', netns: true },
        { name: 'pc-gpu', profile: 'healthy', netns: true },
        { name: 'pc-lo', profile: 'no-gpu' },
      ],
    });
    [login, gpu, loopback] = lab.hosts;
  });
  after(async () => lab?.stop());

  it('goes through `ProxyCommand ssh -W %h:%p login`: the GPU host sees the login node connect', async () => {
    const file = viaCommand('ssh -F CFG -W %h:%p pc-login');
    assert.equal((await realSsh(file, 'pc-gpu')).stdout, 'pc-gpu\ngdr\n', 'the real ssh goes through');
    const before = loginsFrom(gpu).length;
    assert.equal(await ourRun(file, 'pc-gpu'), 'pc-gpu\ngdr\n');
    assert.deepEqual(loginsFrom(gpu).slice(before), [login.address], 'from the login node, not from this machine');
  });

  it('expands %h %p %r %n %k %% as ssh does and runs the command with $SHELL -c "exec …"', async () => {
    const seen = path.join(lab.dir, 'tokens-seen');
    const file = viaCommand(`env T='%h %p %r %n %k %%' sh -c 'echo "$T $0" >> ${seen}; exec ssh -F CFG -W %h:%p pc-login'`);
    assert.equal((await realSsh(file, 'pc-gpu')).status, 0);
    await ourRun(file, 'pc-gpu');
    const [theirs, ours] = fs.readFileSync(seen, 'utf8').trim().split('\n');
    assert.equal(ours, theirs);
    assert.equal(ours, `${gpu.address} 22 gdr pc-gpu pc-gpu % sh`);
  });

  it('says why when the command fails, with what it printed, as the real ssh fails', async () => {
    const file = viaCommand('ssh -F CFG -W %h:1 pc-login');
    assert.equal((await realSsh(file, 'pc-gpu')).status, 255);
    const e = await refusal(ourRun(file, 'pc-gpu'));
    assert.equal(e.step, 'proxy');
    assert.match(e.message, /^pc-gpu: ProxyCommand exited with status 255: .*(open failed|forwarding failed)/s);
    const missing = await refusal(ourRun(viaCommand('/nonexistent/gdr-proxy %h'), 'pc-gpu'));
    assert.match(missing.message, /ProxyCommand exited with status 127: .*(not found|No such file)/s);
  });

  it('ends the command when the connection is closed', async () => {
    const file = viaCommand('ssh -F CFG -W %h:%p pc-login');
    const conn = await openVia(file, 'pc-gpu');
    assert.ok(processesNaming(file).length > 0, 'the ProxyCommand runs while connected');
    conn.close();
    await until('the ProxyCommand has exited', () => processesNaming(file).length === 0);
  });

  it('reads host:port in ProxyJump and the user@host:port destination (the form Add Host suggests)', async () => {
    const file = writeConfig(
      lab.dir,
      hostBlock('pc-gpu', gpu, [...common(), `ProxyJump ${loopback.address}:${loopback.port}`]) +
        ['Host *', ...common().map((l) => `  ${l}`), ''].join('\n'),
    );
    assert.equal((await realSsh(file, 'pc-gpu')).stdout, 'pc-gpu\ngdr\n', 'the real ssh reads the hop so');
    assert.equal(await ourRun(file, 'pc-gpu'), 'pc-gpu\ngdr\n');
    assert.equal(await ourRun(file, `gdr@${loopback.address}:${loopback.port}`), 'pc-lo\ngdr\n');
  });
});
