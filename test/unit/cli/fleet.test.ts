// `gdr-doctor diagnose` with many hosts, without a lab: what is refused before anything connects
// (bad host lists, counts, relay options), and a fleet of hosts whose port refuses (a closed
// loopback port), which must end every host as unreachable at the TCP step.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI } from '../../support/paths';
import { freePort } from '../../lab/ports';

function cli(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, 'diagnose', ...args], {
    encoding: 'utf8',
    input,
    env: { ...process.env, SSH_AUTH_SOCK: '' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A loopback port nobody listens on: connecting is refused at once. */
const closedPort = freePort;

describe('gdr-doctor diagnose: many hosts', function () {
  this.timeout(60_000); // each case starts the CLI several times
  let dir: string;
  let config: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-fleet-cli-'));
    config = path.join(dir, 'ssh_config');
    fs.writeFileSync(
      config,
      `Host dead*\n  HostName 127.0.0.1\n  Port ${await closedPort()}\n  User gdr\n  UserKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n`,
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses a bad host list with exit 64, naming the column', () => {
    const r = cli(['-F', config, 'gpu[01-']);
    assert.equal(r.status, 64);
    assert.match(r.stderr, /bad host list: column 4: unclosed bracket in "gpu\[01-"/);
    const reversed = cli(['-F', config, 'node-[7-4]']);
    assert.equal(reversed.status, 64);
    assert.match(reversed.stderr, /column 7: reversed range 7-4/);
  });

  it('refuses a bad hosts file naming its line, and a missing one', () => {
    const file = path.join(dir, 'hosts');
    fs.writeFileSync(file, 'dead1\ndead[2-3;\n');
    const r = cli(['-F', config, '--hosts-file', file]);
    assert.equal(r.status, 64);
    assert.match(r.stderr, /--hosts-file .*: line 2, column 5:/);
    const missing = cli(['-F', config, '--hosts-file', path.join(dir, 'nope')]);
    assert.equal(missing.status, 64);
    assert.match(missing.stderr, /cannot read .*ENOENT/);
  });

  const refused = (args: string[], message: RegExp) => {
    const r = cli(['-F', config, ...args]);
    assert.equal(r.status, 64, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  };

  it('refuses bad counts, deadlines and destinations', () => {
    refused(['dead[1-2]', '--fanout', '0'], /--fanout needs a whole number/);
    refused(['dead[1-2]', '-f', 'many'], /-f needs a whole number/);
    refused(['dead[1-2]', '--deadline', 'soon'], /--deadline needs a number of seconds/);
    refused(['dead 1'], /not a host/);
  });

  it('refuses relay options without --via, and bad ones before connecting to the login node', () => {
    refused(['dead[1-2]', '--with', 'slurm'], /--with goes with --via LOGIN/);
    refused(['dead[1-2]', '-w', 'dead3'], /-w goes with --via LOGIN/);
    refused(['--via', 'dead1', '--demo'], /--via diagnoses nodes/);
    refused(['--via', 'dead1', '--with', 'ansible', 'n1'], /--with takes slurm, pdsh or clush/);
    refused(['--via', 'dead1', '--with', 'pdsh'], /pdsh needs a host list/);
    refused(['--via', 'dead1', '--with', 'slurm', '--partition', 'gpu;reboot'], /not a Slurm partition name/);
    refused(['--via', 'dead1', '--with', 'pdsh', '--jobid', '12', 'n[1-2]'], /Slurm options/);
  });

  it('ends every host of a fleet whose port refuses as unreachable at the TCP step (exit 3)', () => {
    const r = cli(['-F', config, 'dead[1-3]', 'dead5', '--json', '-f', '2']);
    assert.equal(r.status, 3, r.stderr);
    const fleet = JSON.parse(r.stdout);
    assert.deepEqual(
      fleet.hosts.map((h: { host: string }) => h.host),
      ['dead1', 'dead2', 'dead3', 'dead5'],
    );
    for (const h of fleet.hosts) assert.deepEqual([h.status, h.error.step, h.path], ['unreachable', 'tcp', 'direct']);
    assert.equal(r.stderr.match(/cannot reach \(tcp\)/g)?.length, 4, r.stderr);
  });

  it('prints the summary for a fleet, and a lone host as before', () => {
    const fleet = cli(['-F', config, 'dead1,dead2']);
    assert.equal(fleet.status, 3);
    assert.match(fleet.stdout, /unreachable/);
    assert.match(fleet.stdout, /dead\[1-2\]/);
    const single = cli(['-F', config, 'dead1']);
    assert.equal(single.status, 3);
    assert.equal(single.stdout, '');
    assert.match(single.stderr, /^gdr-doctor: dead1: cannot reach \(tcp\): dead1: connection refused\n$/);
  });

  it('reads hosts from standard input with --hosts-file -', () => {
    const r = cli(['-F', config, '--hosts-file', '-', '--json'], '# fleet\ndead[7-8]\n');
    assert.equal(r.status, 3, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).hosts.map((h: { host: string }) => h.host),
      ['dead7', 'dead8'],
    );
  });
});
