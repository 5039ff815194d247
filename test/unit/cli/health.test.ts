// `gdr-doctor diagnose --format prometheus|npd`, `--textfile-dir` and `gdr-doctor diff`, run as a user
// runs them (the built CLI), on the demo host, its JSON report and hosts that refuse the connection.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI } from '../../support/paths';
import { freePort } from '../../lab/ports';

function cli(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', input, env: { ...process.env, SSH_AUTH_SOCK: '' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every sample line of an exposition text, the last-run timestamp's value left out (it moves with the clock). */
function stableSamples(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => (l.startsWith('gdr_doctor_last_run_timestamp_seconds') ? l.replace(/ \d+$/, ' <time>') : l));
}

describe('gdr-doctor diagnose --format prometheus | npd, --textfile-dir', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-health-cli-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints each family with HELP and TYPE, each series once; the same series and values on a second run', () => {
    const first = cli(['diagnose', '--demo', '--format', 'prometheus']);
    assert.equal(first.status, 0, first.stderr);
    const families = first.stdout
      .split('\n')
      .filter((l) => l.startsWith('# TYPE '))
      .map((l) => l.split(' ')[2]);
    const named = new Set(stableSamples(first.stdout).map((l) => l.slice(0, l.search(/[{ ]/))));
    assert.deepEqual([...named].sort(), [...families].sort());
    const series = stableSamples(first.stdout).map((l) => l.slice(0, l.lastIndexOf(' ')));
    assert.equal(new Set(series).size, series.length, 'no series twice');
    assert.match(first.stdout, /^gdr_doctor_findings\{host="demo-hgx-h100 \(replayed\)",severity="error",id="peermem.not-loaded"\} 1$/m);
    const second = cli(['diagnose', '--demo', '--format', 'prometheus']);
    assert.deepEqual(stableSamples(second.stdout), stableSamples(first.stdout));
  });

  it('--textfile-dir writes DIR/gdr_doctor.prom and nothing else there, printing nothing', () => {
    const r = cli(['diagnose', '--demo', '--textfile-dir', dir]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.deepEqual(fs.readdirSync(dir), ['gdr_doctor.prom']);
    const written = fs.readFileSync(path.join(dir, 'gdr_doctor.prom'), 'utf8');
    assert.deepEqual(stableSamples(written), stableSamples(cli(['diagnose', '--demo', '--format', 'prometheus']).stdout));
    // With --format too, stdout gets what it asks for.
    const both = cli(['diagnose', '--demo', '--textfile-dir', dir, '--format', 'npd']);
    assert.equal(both.stdout, 'GPUDirect RDMA problem: GDR 0/8 GPUs; peermem.not-loaded\n');
    assert.deepEqual(fs.readdirSync(dir), ['gdr_doctor.prom']);
  });

  it('--textfile-dir that is missing or not a directory: exit 73, saying which', () => {
    const missing = cli(['diagnose', '--demo', '--textfile-dir', path.join(dir, 'nope')]);
    assert.equal(missing.status, 73);
    assert.match(missing.stderr, /--textfile-dir .*nope: no such directory/);
    const file = path.join(dir, 'gdr_doctor.prom');
    const notDir = cli(['diagnose', '--demo', '--textfile-dir', file]);
    assert.equal(notDir.status, 73);
    assert.match(notDir.stderr, /not a directory/);
  });

  it('--format npd: one line and the custom-plugin exit status (1: a problem)', () => {
    const r = cli(['diagnose', '--demo', '--format', 'npd']);
    assert.equal(r.status, 1);
    assert.equal(r.stdout, 'GPUDirect RDMA problem: GDR 0/8 GPUs; peermem.not-loaded\n');
    // The line is English whatever the language: it becomes a Kubernetes node condition's message.
    assert.equal(cli(['diagnose', '--demo', '--format', 'npd', '--lang', 'zh-CN']).stdout, r.stdout);
  });

  it('refuses a format it does not know, --json beside another format, and npd for many hosts', () => {
    assert.equal(cli(['diagnose', '--demo', '--format', 'xml']).status, 64);
    assert.match(cli(['diagnose', '--demo', '--json', '--format', 'npd']).stderr, /--json and --format npd/);
    const many = cli(['diagnose', 'a', 'b', '--format', 'npd']);
    assert.equal(many.status, 64);
    assert.match(many.stderr, /--format npd reports one host/);
  });

  it('a fleet whose hosts refuse the connection: each host down under its own host label, exit 3', async () => {
    const config = path.join(dir, 'ssh_config');
    fs.writeFileSync(config, `Host dead*\n  HostName 127.0.0.1\n  Port ${await freePort()}\n  User gdr\n  UserKnownHostsFile /dev/null\n`);
    const r = cli(['diagnose', '-F', config, 'dead[1-2]', '--format', 'prometheus', '--batch']);
    assert.equal(r.status, 3, r.stderr);
    assert.deepEqual(
      r.stdout.split('\n').filter((l) => l.startsWith('gdr_doctor_up')),
      ['gdr_doctor_up{host="dead1"} 0', 'gdr_doctor_up{host="dead2"} 0'],
    );
    // One host alone that cannot be reached says so in its metrics too.
    const one = cli(['diagnose', '-F', config, 'dead1', '--format', 'prometheus', '--batch']);
    assert.equal(one.status, 3);
    assert.match(one.stdout, /^gdr_doctor_up\{host="dead1"\} 0$/m);
    assert.equal(
      cli(['diagnose', '-F', config, 'dead1', '--format', 'npd', '--batch']).stdout,
      'GPUDirect RDMA unknown: host not diagnosed\n',
    );
  });
});

describe('gdr-doctor diff', function () {
  this.timeout(60_000);
  let dir: string;
  let earlier: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-diff-cli-'));
    earlier = path.join(dir, 'before.json');
    fs.writeFileSync(earlier, cli(['diagnose', '--demo', '--json']).stdout);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The demo's report with a NIC's trained width in its sysfs read changed, as a later probe would show it. */
  function narrowed(): string {
    const doc = JSON.parse(fs.readFileSync(earlier, 'utf8'));
    const sysfs = doc.commands.find((c: { id: string }) => c.id === 'pci-sysfs');
    const line = sysfs.stdout
      .split('\n')
      .find(
        (l: string) =>
          l.startsWith('pci\t') && l.endsWith('/0000:19:00.0\t0x020000\t0x15b3\t0x101b\t0\t16.0 GT/s PCIe\t16\t16.0 GT/s PCIe\t16'),
      );
    assert.ok(line, 'the demo reads mlx5_0 at 0000:19:00.0, x16');
    sysfs.stdout = sysfs.stdout.replace(line, line.replace(/\t16$/, '\t8'));
    const file = path.join(dir, 'after.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    return file;
  }

  it('the same report twice: no change, exit 0', () => {
    const r = cli(['diff', earlier, earlier]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'No change on 1 host(s).\n');
  });

  it('a NIC at x8 since: the change, exit 1; --json gives the same', () => {
    const after = narrowed();
    const r = cli(['diff', earlier, after]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^demo-hgx-h100 \(replayed\) \(.* → .*\): worse$/m);
    assert.match(r.stdout, /^ {2}mlx5_0: PCIe width x16 → x8$/m);
    const json = cli(['diff', earlier, after, '--json']);
    assert.equal(json.status, 1);
    const doc = JSON.parse(json.stdout);
    assert.equal(doc.worse, true);
    assert.deepEqual(doc.hosts[0].links, [{ device: 'mlx5_0', kind: 'nic', field: 'width', from: 16, to: 8 }]);
    // Reversed, it got better: exit 0.
    assert.equal(cli(['diff', after, earlier]).status, 0);
  });

  it('exit 2 for a file that is not a report, 66 for one that cannot be read, 64 for bad usage', () => {
    const notJson = path.join(dir, 'x.json');
    fs.writeFileSync(notJson, '{"host": ');
    const bad = cli(['diff', earlier, notJson]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /x\.json: not JSON/);
    assert.equal(cli(['diff', earlier, '-'], '{"summary": "x"}').status, 2);
    assert.equal(cli(['diff', earlier, path.join(dir, 'missing.json')]).status, 66);
    assert.equal(cli(['diff', earlier, dir]).status, 66);
    assert.equal(cli(['diff', earlier]).status, 64);
  });
});
