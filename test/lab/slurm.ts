// Real Slurm (Debian's slurm-wlm + munge) across lab hosts: one shared munge key, munged in
// every participating host (socket in its private /run), slurmctld on the controller and slurmd
// in each compute host under its lab name, so jobs run inside the simulated host with its
// fakes. The files land in each host's folder; hostinit.sh starts the daemons in the host's
// namespaces, so they die with it. The machine's own /etc/slurm and /etc/munge stay untouched.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ClusterHost } from './cluster';

export interface LabSlurm {
  /** Host that runs slurmctld (usually the login node). */
  controller: string;
  /** Hosts that run slurmd, named as in the lab. */
  nodes: string[];
  /** The one partition (default `gpu`). */
  partition?: string;
  /**
   * cgroup.conf `ConstrainDevices=yes` with task/cgroup, as GPU clusters run it: a step opens only the GPU
   * device files of the GPUs it asked for (`--gres=gpu:N`). Each slurmd gets a devices cgroup of its own.
   */
  constrainDevices?: boolean;
}

export interface PreparedSlurm extends Required<Omit<LabSlurm, 'constrainDevices'>> {
  readonly constrainDevices: boolean;
  /** slurm.conf as every participating host sees it at /etc/slurm/slurm.conf. */
  confPath: string;
  /** Logs: slurmctld's, and each node's slurmd (by node name). */
  ctldLogPath: string;
  slurmdLogPath(node: string): string;
}

const binaries = ['/usr/sbin/munged', '/usr/sbin/slurmctld', '/usr/sbin/slurmd', '/usr/bin/sinfo', '/usr/bin/setpriv', '/usr/bin/nsenter'];

function check(s: LabSlurm, byName: Map<string, ClusterHost>): Omit<PreparedSlurm, 'confPath' | 'ctldLogPath' | 'slurmdLogPath'> {
  const partition = s.partition ?? 'gpu';
  if (!/^[a-z][a-z0-9_-]{0,30}$/.test(partition)) throw new Error(`slurm.partition must be 1-31 of [a-z0-9_-]: ${partition}`);
  if (s.nodes.length === 0) throw new Error('slurm.nodes is empty');
  if (new Set(s.nodes).size !== s.nodes.length) throw new Error('slurm.nodes names a host twice');
  for (const n of [s.controller, ...s.nodes]) {
    // Each daemon binds its well-known port: only hosts with their own address can hold one each.
    if (!byName.get(n)?.netns) throw new Error(`slurm: ${n} is not a netns host of this lab`);
  }
  for (const b of binaries) if (!fs.existsSync(b)) throw new Error(`${b} is missing: run test/lab/install.sh (as root) first`);
  if (s.constrainDevices && !fs.existsSync('/sys/fs/cgroup/devices/tasks'))
    throw new Error('slurm.constrainDevices needs the cgroup v1 devices controller at /sys/fs/cgroup/devices');
  return { controller: s.controller, nodes: [...s.nodes], partition, constrainDevices: s.constrainDevices === true };
}

function slurmConf(s: ReturnType<typeof check>, byName: Map<string, ClusterHost>): string {
  const ctl = byName.get(s.controller)!;
  return [
    'ClusterName=gdrlab',
    `SlurmctldHost=${ctl.name}(${ctl.address})`,
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    'CredType=cred/munge',
    'MpiDefault=none',
    // No cgroups inside the hosts (`ip netns exec` remounts /sys): plugins that need none. Real
    // clusters track a step by cgroup and so kill all of it; proctrack/pgid kills each task's whole
    // process group, which holds everything the probe starts. proctrack/linuxproc walks parent
    // links, and a process whose parent died first escapes it (Slurm's proctrack docs say so): a
    // cancelled step then left the lab's hung `sleep` behind.
    'ProctrackType=proctrack/pgid',
    // With constrainDevices, task/cgroup puts each step in a devices cgroup (hostinit.sh mounts the host's own).
    s.constrainDevices ? 'TaskPlugin=task/cgroup' : 'TaskPlugin=task/none',
    'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    'SchedulerType=sched/builtin',
    // GPUs as Slurm counts them (GRES without device files: the hosts have none), so srun can ask for them
    // (--gpus-per-node, which needs select/cons_tres); 8 CPUs each as configured, not as the test
    // machine has, so a step can run one task per GPU (prove --nccl).
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core',
    'GresTypes=gpu',
    'SlurmdParameters=config_overrides',
    'ReturnToService=2',
    'MailProg=/bin/true',
    // Per host: /run is each host's private tmpfs.
    'StateSaveLocation=/run/slurm/ctld',
    'SlurmdSpoolDir=/run/slurm/d',
    'SlurmctldPidFile=/run/slurm/slurmctld.pid',
    'SlurmdPidFile=/run/slurm/slurmd.pid',
    `SlurmctldLogFile=${path.join(ctl.h, 'slurm', 'slurmctld.log')}`,
    // %n: the node name, so each slurmd logs into its own host folder.
    `SlurmdLogFile=${path.join(path.dirname(ctl.h), '%n', 'slurm', 'slurmd.log')}`,
    ...s.nodes.map((n) => `NodeName=${n} NodeAddr=${byName.get(n)!.address} CPUs=${LAB_GPUS} Gres=gpu:${LAB_GPUS} State=UNKNOWN`),
    `PartitionName=${s.partition} Nodes=${s.nodes.join(',')} Default=YES MaxTime=INFINITE State=UP`,
    '',
  ].join('\n');
}

/**
 * Devices only: cores, memory and swap are not constrained (the lab's nodes share one machine's). The
 * devices cgroup is mounted by hostinit.sh, so Slurm mounts nothing.
 */
const CGROUP_CONF = [
  'CgroupPlugin=cgroup/v1',
  'CgroupAutomount=no',
  'ConstrainDevices=yes',
  'ConstrainCores=no',
  'ConstrainRAMSpace=no',
  'ConstrainSwapSpace=no',
  '',
].join('\n');

/** GPUs (and CPUs) each node offers Slurm: the lab's GPU profiles have 8. */
const LAB_GPUS = 8;

function mungeIds(): { uid: number; gid: number } {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('munge:'));
  if (!line) throw new Error('user munge is missing: run test/lab/install.sh (as root) first');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Writes <h>/slurm/{roles,slurm.conf,munge.key} for every participating host. */
export function prepareSlurm(dir: string, spec: LabSlurm, hosts: readonly ClusterHost[]): PreparedSlurm {
  const byName = new Map(hosts.map((c) => [c.name, c]));
  const s = check(spec, byName);
  const conf = slurmConf(s, byName);
  const key = randomBytes(1024);
  const munge = mungeIds();
  for (const name of new Set([s.controller, ...s.nodes])) {
    const sd = path.join(byName.get(name)!.h, 'slurm');
    fs.mkdirSync(sd, { recursive: true, mode: 0o755 });
    const roles = [...(name === s.controller ? ['ctld'] : []), ...(s.nodes.includes(name) ? ['d'] : [])];
    fs.writeFileSync(path.join(sd, 'roles'), roles.map((r) => r + '\n').join(''));
    fs.writeFileSync(path.join(sd, 'slurm.conf'), conf);
    // Slurm counts a GPU by its device file: hostinit.sh makes /run/gdrlab-gpus/nvidia0..7 (NVIDIA's
    // char major 195) in the host's private /run. Slurm only stats them; nothing opens them.
    fs.writeFileSync(path.join(sd, 'gres.conf'), `Name=gpu File=/run/gdrlab-gpus/nvidia[0-${LAB_GPUS - 1}]\n`);
    // Its presence tells startHost and hostinit.sh to give this host a devices cgroup (see lab.ts).
    if (s.constrainDevices && s.nodes.includes(name)) fs.writeFileSync(path.join(sd, 'cgroup.conf'), CGROUP_CONF);
    // munged insists: key readable by its own user only, log writable by it.
    fs.writeFileSync(path.join(sd, 'munge.key'), key, { mode: 0o400 });
    fs.writeFileSync(path.join(sd, 'munged.log'), '');
    for (const f of ['munge.key', 'munged.log']) fs.chownSync(path.join(sd, f), munge.uid, munge.gid);
  }
  const hostsDir = path.join(dir, 'hosts');
  return {
    ...s,
    confPath: path.join(hostsDir, s.controller, 'slurm', 'slurm.conf'),
    ctldLogPath: path.join(hostsDir, s.controller, 'slurm', 'slurmctld.log'),
    slurmdLogPath: (node) => path.join(hostsDir, node, 'slurm', 'slurmd.log'),
  };
}

/** Runs a command inside a host (its mount, UTS, net and PID namespaces) as root, e.g. `scontrol`; argv, no shell. */
export function inHost(listenerPid: number, argv: string[], timeoutMs = 10000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'nsenter',
      ['--target', String(listenerPid), '--mount', '--uts', '--net', '--pid', '--', ...argv],
      { timeout: timeoutMs, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${argv.join(' ')}: ${err.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/** Resolves once `sinfo` on the controller shows every node idle. */
export async function waitSlurmIdle(s: PreparedSlurm, controllerPid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      last = await inHost(controllerPid, ['sinfo', '-h', '-N', '-o', '%N %t']);
      const state = new Map(
        last
          .trim()
          .split('\n')
          .map((l) => l.split(' ') as [string, string]),
      );
      if (s.nodes.every((n) => state.get(n) === 'idle')) return;
    } catch (e) {
      last = String(e); // slurmctld not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const tail = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').slice(-3000) : '(no log)');
  throw new Error(
    `slurm nodes not idle after ${timeoutMs} ms; sinfo:\n${last}\nslurmctld.log:\n${tail(s.ctldLogPath)}` +
      `\nslurmd.log (${s.nodes[0]}):\n${tail(s.slurmdLogPath(s.nodes[0]))}`,
  );
}
