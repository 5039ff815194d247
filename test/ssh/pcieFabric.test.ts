// The PCIe fabric on simulated hosts over real SSH: ACS read through sudo -n (or said unreadable), the
// disable-acs and persist-acs fixes applied and verified against the host's own simulated config
// state (its lspci/setpci act on it; the call log shows what ran and as whom), refused in a VM; a GPU
// at x8 (alone in a fleet of four); RoCE ports without a routable v2 GID; the RoCE NICs' QoS (mlnx_qos -i, as the
// login user) behind NCCL's traffic class. Loopback hosts, its own records file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ACS_UNIT, ACS_WANTS } from '../../src/core/fixes/acsBoot';
import { noPrompts } from '../../src/core/ssh/prompts';
import { runCli } from '../support/cli';
import { fixOverSsh } from '../support/labFix';
import { assertLabCanRun, cleanupStale, Lab, LabHost, LabUser, startLab } from '../lab/lab';

const RECORDS = '/tmp/gdr-doctor-lab-pcie.records.json';
const USERS: LabUser[] = [
  { name: 'gdr', uid: 1500, sudo: 'nopasswd', keys: ['plain'] },
  { name: 'pwuser', uid: 1501, sudo: 'password', password: 'pwuser-lab-pw', keys: ['plain'] },
  { name: 'nosudo', uid: 1502, sudo: 'none', password: 'nosudo-lab-pw', keys: ['plain'] },
  { name: 'root', uid: 0, sudo: 'none', keys: ['plain'] },
];
const GPU0_PORTS = ['0000:17:01.0', '0000:17:02.0'];

let lab: Lab;
const auditLogOf = (host: string) => path.join(lab.dir, `audit-${host}.log`);

function cli(host: string, args: string[]) {
  return runCli([args[0], '-F', lab.sshConfigPath, ...args.slice(1)], { GDR_DOCTOR_AUDIT_LOG: auditLogOf(host) });
}

interface JsonFinding {
  id: string;
  severity: string;
  title: string;
  detail: string;
  evidence: string[];
  fixes: string[];
}
async function findings(destination: string, extra: string[] = []): Promise<JsonFinding[]> {
  const r = await cli(destination, ['diagnose', destination, '--json', ...extra]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout).findings as JsonFinding[];
}
const one = (fs: JsonFinding[], id: string) => {
  const f = fs.filter((x) => x.id === id);
  assert.equal(f.length, 1, `${id} among ${fs.map((x) => x.id).join(', ')}`);
  return f[0];
};

/** ACSCtl of a bridge as the host's own setpci reads it, as root. */
function acsCtl(h: LabHost, bdf: string): string {
  const r = spawnSync('ssh', ['-F', lab.sshConfigPath, `root@${h.name}`, `setpci -s ${bdf} ECAP_ACS+0x6.w`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

/** A shell command as root inside the host, over SSH. */
function asRoot(h: LabHost, command: string) {
  return spawnSync('ssh', ['-F', lab.sshConfigPath, `root@${h.name}`, command], { encoding: 'utf8' });
}

const setpciWrites = (h: LabHost) => h.calls().filter((c) => c.cmd === 'setpci' && c.args.some((a) => a.includes('=')));

describe('the PCIe fabric on simulated hosts', function () {
  this.timeout(180_000);

  before(async () => {
    assertLabCanRun();
    await cleanupStale(RECORDS);
    const host = (name: string, profile: string) => ({ name, profile, users: USERS });
    lab = await startLab({
      recordsPath: RECORDS,
      hosts: [
        host('pf-acs', 'hgx-acs'),
        host('pf-pw', 'hgx-acs'),
        host('pf-x8', 'hgx-x8'),
        host('pf-idle', 'hgx-idle'),
        host('pf-hdr100', 'hgx-hdr100'),
        host('pf-old', 'hgx-old-kernel'),
        host('pf-bls', 'hgx-bls'),
        host('pf-busy', 'hgx-busy'),
        host('pf-gone', 'hgx-acs'),
        host('pf-aer', 'hgx-aer'),
        host('pf-nov2', 'roce-no-v2'),
        host('pf-qos', 'roce-qos'),
        host('pf-vm', 'vm-h200'),
      ],
    });
  });
  after(async () => lab?.stop());

  it('reads ACS through sudo -n and names the two switch ports of each GPU↔NIC pair', async () => {
    const f = one(await findings('pf-acs'), 'pcie.acs-enabled');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.fixes, ['disable-acs', 'persist-acs']);
    assert.match(f.detail, /GPU0↔mlx5_0 via 0000:17:01\.0, 0000:17:02\.0;/);
    const lspci = lab
      .host('pf-acs')
      .calls()
      .filter((c) => c.cmd === 'lspci');
    assert.ok(lspci.length >= 16 && lspci.every((c) => c.uid === 0 && c.args[0] === '-vvv'), 'lspci ran as root through sudo -n');
  });

  it('as a user sudo asks a password: no password is asked by the probe; the bridges and the command are named', async () => {
    const f = one(await findings('pwuser@pf-pw'), 'pcie.acs-unread');
    assert.match(f.detail, /sudo -n did not run it \(sudo: a password is required\)/);
    assert.match(f.detail, /for b in 0000:17:01\.0 0000:17:02\.0 .* do sudo lspci -vvv -s \$b/);
    assert.deepEqual(
      lab
        .host('pf-pw')
        .calls()
        .filter((c) => c.cmd === 'lspci'),
      [],
    );
  });

  it('disable-acs writes 0000 to exactly the 16 redirecting ports as root, reads them back, audits the old values', async () => {
    const h = lab.host('pf-acs');
    assert.deepEqual(
      GPU0_PORTS.map((b) => acsCtl(h, b)),
      ['001d', '001d'],
    );
    const r = await cli('pf-acs', ['fix', 'pf-acs', 'disable-acs', '--yes']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /disable-acs applied: ACS is off on 0000:17:01\.0, 0000:17:02\.0, /);
    assert.match(r.stdout, /checked: lspci -vvv -s 0000:17:01\.0: ACSCtl all off/);
    const writes = setpciWrites(h);
    assert.equal(writes.length, 16);
    assert.ok(writes.every((c) => c.uid === 0 && c.args[2] === 'ECAP_ACS+0x6.w=0000'));
    assert.deepEqual(
      GPU0_PORTS.map((b) => acsCtl(h, b)),
      ['0000', '0000'],
    );
    assert.equal(acsCtl(h, '0000:15:01.0'), '001d', 'the root port, on no GPU↔NIC path, is left alone');
    const audit = fs
      .readFileSync(auditLogOf('pf-acs'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      [audit[0].fix, audit[0].status, audit[0].bridges[0]],
      ['disable-acs', 'applied', { bdf: '0000:17:01.0', before: '001d' }],
    );
    assert.ok(!(await findings('pf-acs')).some((x) => x.id === 'pcie.acs-enabled'), 'the re-diagnosis sees ACS off');
    const again = await cli('pf-acs', ['fix', 'pf-acs', 'disable-acs', '--yes']);
    assert.match(again.stdout, /nothing to do/);
    assert.equal(setpciWrites(h).length, 16, 'idempotent: no write the second time');
  });

  it('persist-acs without a bootloader file: the checked boot unit, its checks run once; at "boot" it writes, and refuses a renumbered bus', async () => {
    const h = lab.host('pf-acs');
    const dry = await cli('pf-acs', ['fix', 'pf-acs', 'persist-acs', '--dry-run']);
    assert.match(dry.stdout, /Not the kernel parameter pci=disable_acs_redir=: neither \/etc\/default\/grub nor BLS entries/);
    assert.match(
      dry.stdout,
      /\+same 0000:17:01\.0 \/sys\/devices\/pci0000:15\/0000:15:01\.0\/0000:16:00\.0\/0000:17:01\.0 1000:c030 \|\| ok=0/,
    );
    assert.equal(fs.existsSync(path.join(h.etcUpperDir, 'systemd')), false, 'a dry run writes nothing');
    const r = await cli('pf-acs', ['fix', 'pf-acs', 'persist-acs', '--yes']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /every check passed \(--check: nothing written\)/);
    const unit = fs.readFileSync(path.join(h.etcUpperDir, ACS_UNIT.slice('/etc/'.length)), 'utf8');
    assert.match(unit, /^ExecStart=\/bin\/sh \/etc\/gdr-doctor\/acs-boot\.sh$/m);
    assert.equal(fs.readlinkSync(path.join(h.etcUpperDir, ACS_WANTS.slice('/etc/'.length))), ACS_UNIT);
    const again = await cli('pf-acs', ['fix', 'pf-acs', 'persist-acs', '--yes']);
    assert.match(again.stdout, /already turns off ACS on these bridges at boot and is enabled: nothing to do/);
    // "Boot": ACS back on as the kernel sets it, then the unit's script as systemd would run it.
    asRoot(h, 'for b in 0000:17:01.0 0000:17:02.0; do setpci -s $b ECAP_ACS+0x6.w=001d; done');
    const boot = asRoot(h, 'sh /etc/gdr-doctor/acs-boot.sh');
    assert.equal(boot.status, 0, boot.stderr);
    assert.match(boot.stdout, /gdr-doctor-acs: 0000:17:01\.0: ACSCtl 001d -> 0000/);
    // A new card renumbered the buses: the bridge's address is gone; the boot step writes nothing and fails.
    asRoot(h, 'setpci -s 0000:17:02.0 ECAP_ACS+0x6.w=001d; mv /sys/bus/pci/devices/0000:17:01.0 /sys/bus/pci/devices/0000:17:01.7');
    const moved = asRoot(h, 'sh /etc/gdr-doctor/acs-boot.sh');
    assert.equal(moved.status, 1);
    assert.match(moved.stderr, /0000:17:01\.0: no such PCI device now \(removed, or the buses renumbered\)/);
    assert.equal(acsCtl(h, '0000:17:02.0'), '001d', 'nothing written');
    asRoot(h, 'mv /sys/bus/pci/devices/0000:17:01.7 /sys/bus/pci/devices/0000:17:01.0');
  });

  it('persist-acs with BLS entries: pci=disable_acs_redir= in the entry and /etc/kernel/cmdline, shown as diffs, effective next boot', async () => {
    const h = lab.host('pf-bls');
    const r = await cli('pf-bls', ['fix', 'pf-bls', 'persist-acs', '--yes']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /\+options root=\/dev\/mapper\/rhel-root ro intel_iommu=on iommu=pt pci=disable_acs_redir=pci:1000:c030/);
    assert.match(r.stdout, /effective from the next boot/);
    assert.equal(
      fs.readFileSync(path.join(h.etcUpperDir, 'kernel/cmdline'), 'utf8'),
      'root=/dev/mapper/rhel-root ro intel_iommu=on iommu=pt pci=disable_acs_redir=pci:1000:c030\n',
    );
    assert.match(asRoot(h, 'cat /boot/loader/entries/*.conf').stdout, /^options .* pci=disable_acs_redir=pci:1000:c030$/m);
    assert.deepEqual(setpciWrites(h), [], 'nothing written to the bridges now');
    assert.match((await cli('pf-bls', ['fix', 'pf-bls', 'persist-acs', '--yes'])).stdout, /is already on the kernel command line/);
  });

  it('a process holding /dev/nvidia0: disable-acs lists it and changes nothing (exit 4); --force goes on', async () => {
    const h = lab.host('pf-busy');
    asRoot(h, 'nohup sh -c "exec 3</dev/nvidia0; exec sleep 300" >/dev/null 2>&1 &');
    const r = await cli('pf-busy', ['fix', 'pf-busy', 'disable-acs', '--yes']);
    assert.equal(r.status, 4, r.stdout + r.stderr);
    assert.match(r.stdout, /1 processes on pf-busy hold the GPUs or RDMA devices: \d+ sleep \(\/dev\/nvidia0\)\. Nothing was changed/);
    assert.deepEqual(setpciWrites(h), []);
    const forced = await cli('pf-busy', ['fix', 'pf-busy', 'disable-acs', '--yes', '--force']);
    assert.equal(forced.status, 0, forced.stdout + forced.stderr);
    assert.match(forced.stdout, /holds a device: \d+ sleep \(\/dev\/nvidia0\)/);
    assert.equal(acsCtl(h, '0000:17:01.0'), '0000');
    asRoot(h, 'pkill -x sleep || true');
  });

  it('a bridge that vanished between the plan and the write: disable-acs fails loudly and writes nothing', async () => {
    const h = lab.host('pf-gone');
    const result = await fixOverSsh(lab.sshConfigPath, 'pf-gone', 'disable-acs', noPrompts, () => {
      asRoot(h, 'rm /sys/bus/pci/devices/0000:39:02.0 /run/gdrlab-pci/0000:39:02.0.lspci');
    });
    assert.equal(result.status, 'failed', result.message);
    assert.match(result.message, /0000:39:02\.0: no such PCI device now \(removed, or the buses renumbered\)/);
    assert.deepEqual(setpciWrites(h), []);
  });

  it("with sudo's password: the plan names every bridge, the script writes the redirecting ones, verified", async () => {
    const prompts = { ...noPrompts, password: async () => 'pwuser-lab-pw' };
    const result = await fixOverSsh(lab.sshConfigPath, 'pwuser@pf-pw', 'disable-acs', prompts);
    assert.equal(result.status, 'applied', result.message);
    assert.equal(result.plan.privilege, 'sudo-password');
    assert.equal(result.plan.acs?.bridges.length, 16);
    assert.deepEqual(
      GPU0_PORTS.map((b) => acsCtl(lab.host('pf-pw'), b)),
      ['0000', '0000'],
    );
  });

  it('refuses disable-acs in the VM and runs nothing there', async () => {
    const r = await cli('pf-vm', ['fix', 'pf-vm', 'disable-acs', '--yes']);
    assert.equal(r.status, 4, r.stdout + r.stderr);
    assert.match(r.stdout, /This host is a virtual machine \(lscpu: Hypervisor vendor: KVM; .*sys_vendor QEMU/);
    assert.deepEqual(
      lab
        .host('pf-vm')
        .calls()
        .filter((c) => c.cmd === 'setpci'),
      [],
    );
    assert.match(one(await findings('pf-vm'), 'platform.virtual-machine').detail, /NCCL_TOPO_FILE/);
  });

  it('a kernel before 5.11 with intel_iommu=on: disable-acs and persist-acs refuse (passthrough not shown) and write nothing', async () => {
    for (const fix of ['disable-acs', 'persist-acs']) {
      const r = await cli('pf-old', ['fix', 'pf-old', fix, '--yes']);
      assert.equal(r.status, 4, r.stdout + r.stderr);
      assert.match(
        r.stdout,
        /needs IOMMU passthrough to be shown, and it is not: the IOMMU is active \(48 groups\), its group types cannot be read/,
      );
    }
    assert.deepEqual(setpciWrites(lab.host('pf-old')), []);
    assert.equal(fs.existsSync(path.join(lab.host('pf-old').etcUpperDir, 'systemd')), false);
  });

  it('a GPU at x8 of x16: pcie.link-degraded with the numbers', async () => {
    const f = one(await findings('pf-x8'), 'pcie.link-degraded');
    assert.equal(f.title, 'PCIe link trained below capability: GPU1');
    assert.match(f.detail, /^GPU1 0000:3b:00\.0 ↔ 0000:39:01\.0: x8 of x16\./);
  });

  it('an idle HGX (GPUs and their ports at 2.5 GT/s, Gen3/Gen4 NICs under Gen5 ports): no warning, the GPUs as info', async () => {
    const all = await findings('pf-idle');
    assert.deepEqual(
      all.filter((f) => f.severity !== 'info').map((f) => f.id),
      [],
    );
    assert.equal(one(all, 'pcie.link-degraded').severity, 'info');
    assert.match(one(all, 'pcie.link-degraded').title, /^GPU PCIe link below its top speed \(likely idle power saving\): GPU0, /);
  });

  it('AER and port error counters read by the probe (twice, a second apart): pcie.aer-errors and ib.port-errors, information while they stay', async () => {
    const all = await findings('pf-aer');
    const aer = one(all, 'pcie.aer-errors');
    assert.equal(aer.severity, 'info');
    assert.match(aer.detail, /GPU0 0000:19:00\.0: 37 correctable, 0 fatal, 0 non-fatal; bridge 0000:17:01\.0: 37 correctable/);
    const port = one(all, 'ib.port-errors');
    assert.match(port.detail, /^mlx5_0:1: symbol_error 12, link_error_recovery 1\./);
    assert.deepEqual(
      all.filter((f) => f.severity !== 'info').map((f) => f.id),
      [],
    );
  });

  it('InfiniBand ports on HDR100 splitter cables (2X HDR everywhere): no ib.link-degraded, no warning', async () => {
    const all = await findings('pf-hdr100');
    assert.deepEqual(
      all.filter((f) => f.severity !== 'info').map((f) => f.id),
      [],
    );
  });

  it('RoCE ports without an IP address: roce.no-v2-gid; with them, NCCL 2.20 needs NCCL_IB_GID_INDEX=3', async () => {
    assert.match(
      one(await findings('pf-nov2'), 'roce.no-v2-gid').detail,
      /mlx5_0 port 1: only link-local GIDs \(0, 1\): no IP address on ens3np0/,
    );
    assert.match(one(await findings('pf-x8', ['--nccl', '2.20']), 'roce.gid-index').title, /set NCCL_IB_GID_INDEX=3$/);
  });

  it('RoCE QoS: NCCL_IB_TC=106 lands on priority 3, PFC on, on every port (mlnx_qos as the login user); no warning', async () => {
    const all = await findings('pf-qos', ['--nccl-env', 'NCCL_IB_TC=106']);
    assert.deepEqual(
      all.filter((f) => f.severity !== 'info').map((f) => f.id),
      [],
    );
    const f = one(all, 'roce.traffic-class');
    assert.match(f.detail, /mlx5_0:1 \(ens3np0\): trust dscp, NCCL_IB_TC=106 → DSCP 26 → priority 3; PFC on priority 3;/);
    assert.match(f.detail, /mlx5_7:1 \(ens11np0\): trust dscp, NCCL_IB_TC=106 → DSCP 26 → priority 3; PFC on priority 3\./);
    assert.ok(f.evidence.includes('mlnx_qos -i ens3np0: PFC enabled on priority 3'), f.evidence.join('\n'));
    const calls = lab
      .host('pf-qos')
      .calls()
      .filter((c) => c.cmd === 'mlnx_qos');
    assert.deepEqual(
      [...new Set(calls.map((c) => c.args.join(' ')))].sort(),
      ['ens10np0', 'ens11np0', 'ens2np0', 'ens3np0', 'ens6np0', 'ens7np0', 'ens8np0', 'ens9np0'].map((n) => `-i ${n}`),
    );
    assert.ok(
      calls.every((c) => c.uid !== 0),
      'mlnx_qos ran as the login user',
    );
    // Unset, the class is 0: priority 0, said as a fact; a host without mlnx_qos says the QoS was not read.
    assert.match(
      one(await findings('pf-qos'), 'roce.traffic-class').detail,
      /\(ens3np0\): trust dscp, traffic class 0 → DSCP 0 → priority 0; priority 0 has no PFC here \(PFC on 3\)/,
    );
    assert.match(
      one(await findings('pf-idle'), 'roce.traffic-class').detail,
      /trust mode and PFC priorities were not read \(mlnx_qos is not installed\)/,
    );
  });

  it('in a fleet of four: the host with the GPU at x8 gets fleet.link-width-differs, the one with ACS on fleet.acs-differs, no other', async () => {
    // ACS as the fix tests before leave it (set here so this test stands alone): off on pf-pw, on
    // pf-acs only at 0000:17:02.0 (the renumbered-bus boot of the persist-acs test).
    const allOff = 'for f in /run/gdrlab-pci/*.acsctl; do b=${f##*/}; setpci -s ${b%.acsctl} ECAP_ACS+0x6.w=0000; done';
    asRoot(lab.host('pf-pw'), allOff);
    asRoot(lab.host('pf-acs'), `${allOff}; setpci -s 0000:17:02.0 ECAP_ACS+0x6.w=001d`);
    const r = await cli('fleet', ['diagnose', 'pf-acs,pf-pw,pf-nov2,pf-x8', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const hosts = JSON.parse(r.stdout).hosts as { host: string; report: { findings: JsonFinding[] } }[];
    const differs = hosts.map((h) => [h.host, h.report.findings.filter((f) => f.id.startsWith('fleet.')).map((f) => f.id)]);
    assert.deepEqual(differs, [
      ['pf-acs', ['fleet.acs-differs']],
      ['pf-pw', []],
      ['pf-nov2', []],
      ['pf-x8', ['fleet.link-width-differs']],
    ]);
    const f = one(hosts[3].report.findings, 'fleet.link-width-differs');
    assert.ok(f.detail.startsWith('pf-x8 differs from what most of the 4 hosts compared show.'), f.detail);
    const acs = one(hosts[0].report.findings, 'fleet.acs-differs');
    assert.deepEqual(acs.evidence, ['ACS of bridge 0000:17:02.0 (lspci ACSCtl): redirects here, does not redirect on 3 of 4 hosts']);
  });
});
