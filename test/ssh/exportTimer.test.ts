// The export-timer quick fix against simulated GPU hosts: the built CLI plans it (the two units as a
// diff), applies it as root through sudo, and verifies from the host: the units and their timers.target
// link read back from the host's copy-on-write /etc, and the first export's metrics file written by
// gdr-doctor itself run inside the host (this checkout's dist/cli.js, on the host's PATH through
// /etc/environment, under the machine's Node). A host without gdr-doctor, or without the directory, is
// refused with nothing changed; the root script checks its preconditions again right before it acts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportTimerScript } from '../../src/core/fixes/timerScripts';
import { CLI } from '../support/paths';
import { runCli } from '../support/cli';
import { assertLabCanRun, cleanupStale, derivedProfile, Lab, startLab } from '../lab/lab';
import { inHost } from '../lab/slurm';

const RECORDS = '/tmp/gdr-doctor-lab-export-timer.records.json';
/** In the host's private /run: the machine's own textfile directories are not the host's to write. */
const TEXTFILES = '/run/gdr-textfiles';
const SERVICE = 'systemd/system/gdr-doctor-export.service';
const TIMER = 'systemd/system/gdr-doctor-export.timer';
const WANTS = 'systemd/system/timers.target.wants/gdr-doctor-export.timer';

describe('fix export-timer (lab hosts, the built CLI)', function () {
  this.timeout(300_000);
  let lab: Lab;
  let tools: string;
  let cli: string;
  const fix = (host: string, ...args: string[]) =>
    runCli(['fix', '-F', lab.sshConfigPath, host, 'export-timer', ...args], { GDR_DOCTOR_AUDIT_LOG: path.join(lab.dir, 'audit.log') });

  before(async () => {
    assertLabCanRun();
    await cleanupStale(RECORDS);
    // gdr-doctor as npm install -g leaves it: a link on the PATH to the bundled CLI, made executable.
    tools = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-timer-tools-'));
    fs.chmodSync(tools, 0o755);
    cli = path.join(tools, 'lib', 'cli.js');
    fs.mkdirSync(path.dirname(cli));
    fs.copyFileSync(CLI, cli);
    fs.chmodSync(cli, 0o755);
    fs.symlinkSync(cli, path.join(tools, 'gdr-doctor'));
    const withCli = derivedProfile('gdr-doctor installed (on the PATH of every login)', 'hgx-acs', {
      environment: `PATH="${tools}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\n`,
    });
    lab = await startLab({
      recordsPath: RECORDS,
      hosts: [
        { name: 'tm-cli', profile: withCli },
        { name: 'tm-bare', profile: 'hgx-acs' },
      ],
    });
  });
  after(async () => {
    await lab?.stop();
    if (tools) fs.rmSync(tools, { recursive: true, force: true });
  });

  it('refuses a host without gdr-doctor, changing nothing', async () => {
    const r = await fix('tm-bare', '--yes');
    assert.equal(r.status, 4, r.stdout + r.stderr);
    assert.match(r.stdout, /gdr-doctor is not installed on tm-bare \(command -v gdr-doctor found nothing\)/);
    assert.equal(fs.existsSync(path.join(lab.host('tm-bare').etcUpperDir, SERVICE)), false);
  });

  it('refuses where the textfile directory does not exist, and a directory that is not a plain path', async () => {
    const r = await fix('tm-cli', '--dry-run', '--textfile-dir', TEXTFILES);
    assert.equal(r.status, 4, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`No textfile directory of node_exporter exists on tm-cli \\(${TEXTFILES}\\)`));
    const odd = await fix('tm-cli', '--dry-run', '--textfile-dir', '/run/a b');
    assert.equal(odd.status, 64);
  });

  it('shows both units as a diff, applies them, runs the export once and verifies it all from the host', async () => {
    const h = lab.host('tm-cli');
    await inHost(h.listenerPid(), ['mkdir', '-p', TEXTFILES]);
    const plan = await fix('tm-cli', '--dry-run', '--textfile-dir', TEXTFILES);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /^ {4}\+\+\+ \/etc\/systemd\/system\/gdr-doctor-export\.service$/m);
    assert.match(plan.stdout, /^ {4}\+\+\+ \/etc\/systemd\/system\/gdr-doctor-export\.timer$/m);
    assert.ok(plan.stdout.includes(`\n    +ExecStart=/usr/bin/node ${cli} diagnose --local --textfile-dir ${TEXTFILES}\n`), plan.stdout);
    assert.match(plan.stdout, /^ {4}\+OnUnitActiveSec=5min$/m);
    assert.equal(fs.existsSync(path.join(h.etcUpperDir, SERVICE)), false, '--dry-run changes nothing');

    const r = await fix('tm-cli', '--yes', '--textfile-dir', TEXTFILES);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /gdr-doctor-export\.timer is enabled: every 5min the host writes its GPUDirect RDMA health to \/run\/gdr-textfiles\/gdr_doctor\.prom/,
    );
    assert.match(fs.readFileSync(path.join(h.etcUpperDir, SERVICE), 'utf8'), /^Type=oneshot$/m);
    assert.match(fs.readFileSync(path.join(h.etcUpperDir, TIMER), 'utf8'), /^WantedBy=timers\.target$/m);
    assert.equal(fs.readlinkSync(path.join(h.etcUpperDir, WANTS)), '/etc/systemd/system/gdr-doctor-export.timer');
    // The first export, by gdr-doctor inside the host as root: the host's own health, DCGM's Hostname label.
    const prom = await inHost(h.listenerPid(), ['cat', `${TEXTFILES}/gdr_doctor.prom`]);
    assert.match(prom, /^gdr_doctor_up\{Hostname="tm-cli"\} 1$/m);
    assert.equal((prom.match(/^gdr_doctor_gpu_gdr\{/gm) ?? []).length, 8);

    const again = await fix('tm-cli', '--dry-run', '--textfile-dir', TEXTFILES);
    assert.equal(again.status, 0);
    assert.match(again.stdout, /installed and enabled as planned: nothing to do/);
  });

  it('its root script checks what it needs right before it acts, and stops loudly with nothing changed', async () => {
    const h = lab.host('tm-bare');
    const script = exportTimerScript({ node: '/usr/bin/node', cli, textfileDir: '/run/no-such-dir' });
    await assert.rejects(inHost(h.listenerPid(), ['sh', '-c', script]), /\/run\/no-such-dir is not a directory: nothing was changed/);
    assert.equal(fs.existsSync(path.join(h.etcUpperDir, SERVICE)), false);
    assert.equal(fs.existsSync(path.join(h.etcUpperDir, TIMER)), false);
  });
});
