// A lab host's GPUDirect RDMA health in a real node_exporter: the built CLI diagnoses an HGX host over
// SSH and writes the textfile collector's file, Debian's prometheus-node-exporter serves it on its own
// /metrics, promtool (Debian's prometheus) checks what the CLI printed. Then the host's nvidia_peermem
// is unloaded (the lab's rmmod, as root inside the host) and the same series carry the new answer;
// `gdr-doctor diff` of the two JSON reports says what broke; the NPD contract answers by exit status.
// The host has the open driver (595, as the healthy profile), so dma-buf could stand in for peer memory: the job environment
// turns it off (NCCL_DMABUF_ENABLE=0), as a site that relies on nvidia_peermem does.
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { assertLabCanRun, cleanupStale, Lab, startLab } from '../lab/lab';
import { freePort } from '../lab/ports';
import { inHost } from '../lab/slurm';

const RECORDS = '/tmp/gdr-doctor-lab-metrics.records.json';
const NODE_EXPORTER = '/usr/bin/prometheus-node-exporter';
const PROMTOOL = '/usr/bin/promtool';
const JOB_ENV = ['--nccl-env', 'NCCL_DMABUF_ENABLE=0'];

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

/** `name{labels} value` lines of gdr-doctor's families. */
function gdrSamples(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('gdr_doctor_'));
}

/** The series (name and labels) of sample lines, values left out. */
const seriesOf = (lines: readonly string[]) => lines.map((l) => l.slice(0, l.lastIndexOf(' ')));

describe('metrics: a lab host in a real node_exporter, promtool, diff and the NPD contract', function () {
  this.timeout(360_000); // each diagnose of the 8-GPU host is a full probe over SSH
  let lab: Lab;
  let dir: string;
  let textfiles: string;
  let exporter: ChildProcess | undefined;
  let metricsUrl: string;
  const diagnose = (...args: string[]) => runCli(['diagnose', '-F', lab.sshConfigPath, 'gpu-hgx', ...JOB_ENV, ...args]);
  const scrape = async () => gdrSamples((await get(metricsUrl)).body);

  before(async () => {
    for (const tool of [NODE_EXPORTER, PROMTOOL])
      assert.ok(fs.existsSync(tool), `${tool} is missing: sh test/lab/install.sh installs prometheus-node-exporter and prometheus`);
    assertLabCanRun();
    await cleanupStale(RECORDS);
    lab = await startLab({
      recordsPath: RECORDS,
      hosts: [
        { name: 'gpu-hgx', profile: 'hgx-acs' },
        { name: 'gpu-seed', profile: 'healthy' },
      ],
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-metrics-'));
    textfiles = path.join(dir, 'textfile_collector');
    fs.mkdirSync(textfiles);
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    exporter = spawn(
      NODE_EXPORTER,
      [
        `--web.listen-address=127.0.0.1:${port}`,
        '--collector.disable-defaults',
        '--collector.textfile',
        `--collector.textfile.directory=${textfiles}`,
      ],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i++) {
      if (
        await get(metricsUrl).then(
          (r) => r.status === 200,
          () => false,
        )
      )
        return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`node_exporter did not answer on ${metricsUrl}`);
  });
  after(async () => {
    exporter?.kill();
    await lab?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the textfile node_exporter serves, series unchanged between runs; promtool accepts the output', async () => {
    const first = await diagnose('--textfile-dir', textfiles);
    assert.equal(first.status, 0, first.stderr);
    const served = await scrape();
    assert.ok(served.includes('gdr_doctor_up{host="gpu-hgx"} 1'), served.join('\n'));
    const gdr = served.filter((l) => l.startsWith('gdr_doctor_gpu_gdr{'));
    assert.equal(gdr.length, 8);
    // node_exporter writes labels sorted, and a label some series lack as "" (UUID, where nvidia-smi -q names
    // no GPU at that address: the profile's -q recording is another H100 box's).
    assert.ok(
      gdr.every((l) => / 1$/.test(l) && /gpu="\d",host="gpu-hgx",pci_bus_id="00000000:[0-9A-F]{2}:00\.0"/.test(l)),
      gdr.join('\n'),
    );
    assert.ok(served.includes('gdr_doctor_peer_memory_module_loaded{host="gpu-hgx",module="nvidia_peermem"} 1'));
    assert.ok(served.some((l) => l.startsWith('gdr_doctor_pcie_link_width{device="mlx5_0",host="gpu-hgx",')));
    const exporterOwn = (await get(metricsUrl)).body;
    assert.match(exporterOwn, /^node_textfile_scrape_error 0$/m);
    // A second run of an unchanged host: the same series with the same values (but the time of the run).
    assert.equal((await diagnose('--textfile-dir', textfiles)).status, 0);
    const again = await scrape();
    const stable = (lines: string[]) => lines.filter((l) => !l.startsWith('gdr_doctor_last_run_timestamp_seconds'));
    assert.deepEqual(stable(again), stable(served));
    assert.deepEqual(fs.readdirSync(textfiles), ['gdr_doctor.prom']);
    const printed = await diagnose('--format', 'prometheus');
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: printed.stdout, encoding: 'utf8' });
    assert.equal(check.status, 0, `promtool check metrics:\n${check.stdout}${check.stderr}`);
  });

  it('nvidia_peermem unloaded: the same series, new values; diff says what broke (exit 1); NPD turns 0 → 1', async () => {
    const okNpd = await diagnose('--format', 'npd');
    assert.deepEqual([okNpd.status, okNpd.stdout], [0, 'GPUDirect RDMA OK: GDR 8/8 GPUs\n']);
    // One run gives the JSON report and writes the textfile.
    const before = path.join(dir, 'before.json');
    fs.writeFileSync(before, (await diagnose('--json', '--textfile-dir', textfiles)).stdout);
    const healthy = await scrape();

    await inHost(lab.host('gpu-hgx').listenerPid(), ['rmmod', 'nvidia_peermem']);

    const after = path.join(dir, 'after.json');
    fs.writeFileSync(after, (await diagnose('--json', '--textfile-dir', textfiles)).stdout);
    const broken = await scrape();
    const gdrSeries = (lines: string[]) => seriesOf(lines.filter((l) => l.startsWith('gdr_doctor_gpu_gdr{')));
    assert.deepEqual(gdrSeries(broken), gdrSeries(healthy), 'one series per GPU, whatever its answer');
    assert.ok(
      broken.filter((l) => l.startsWith('gdr_doctor_gpu_gdr{')).every((l) => l.endsWith(' 0')),
      broken.join('\n'),
    );
    assert.ok(broken.includes('gdr_doctor_peer_memory_module_loaded{host="gpu-hgx",module="nvidia_peermem"} 0'));

    const diff = await runCli(['diff', before, after]);
    assert.equal(diff.status, 1, diff.stderr);
    assert.match(diff.stdout, /^gpu-hgx \(.*\): worse$/m);
    assert.match(diff.stdout, /^ {2}nvidia_peermem unloaded$/m);
    assert.match(diff.stdout, /^ {2}GPU0: GDR yes → no /m);
    assert.match((await runCli(['diff', after, before])).stdout, /^ {2}nvidia_peermem loaded$/m);

    const npd = await diagnose('--format', 'npd');
    assert.equal(npd.status, 1);
    assert.match(npd.stdout, /^GPUDirect RDMA problem: GDR 0\/8 GPUs/);
    assert.ok(Buffer.byteLength(npd.stdout.trim()) <= 80 && npd.stdout.split('\n').length === 2);
  });

  it("a proof's measurements land beside the health metrics, in their own file", async () => {
    const audit = path.join(dir, 'audit.log');
    const r = await runCli(
      [
        'prove',
        '-F',
        lab.sshConfigPath,
        'gpu-seed',
        '--gpu',
        '5',
        '--mode',
        'host,peermem',
        '--duration',
        '1',
        '--textfile-dir',
        textfiles,
      ],
      { GDR_DOCTOR_AUDIT_LOG: audit },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.deepEqual(fs.readdirSync(textfiles).sort(), ['gdr_doctor.prom', 'gdr_doctor_proof.prom']);
    const served = await scrape();
    const gbps = served.filter((l) => l.startsWith('gdr_doctor_proof_gbps{'));
    assert.deepEqual(
      gbps.map((l) => /mode="(\w+)"/.exec(l)?.[1]),
      ['host', 'peermem'],
    );
    assert.ok(
      gbps.every((l) => /gpu="5",host="gpu-seed",mode="\w+",nic="mlx5_\d:1"\} \d+(\.\d+)?$/.test(l)),
      gbps.join('\n'),
    );
    assert.ok(served.includes('gdr_doctor_up{host="gpu-hgx"} 1'), 'the health metrics are still served');
    const proofFile = fs.readFileSync(path.join(textfiles, 'gdr_doctor_proof.prom'), 'utf8');
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: proofFile, encoding: 'utf8' });
    assert.equal(check.status, 0, `promtool check metrics:\n${check.stdout}${check.stderr}`);
    assert.match((await get(metricsUrl)).body, /^node_textfile_scrape_error 0$/m);
  });

  it('NPD hears "unknown" (neither 0 nor 1) from a host that cannot be reached', async () => {
    const r = await runCli(['diagnose', '-F', lab.sshConfigPath, 'no-such-host.invalid', '--format', 'npd', '--batch']);
    assert.ok(r.status !== 0 && r.status !== 1, `exit ${r.status}`);
    assert.equal(r.stdout, 'GPUDirect RDMA unknown: host not diagnosed\n');
  });
});
