// Test lab: simulated GPU hosts, each a real sshd in its own mount/UTS/PID namespace
// with real users and sudo, and fake GPU/RDMA commands that replay real recorded
// outputs (see /work/shared/notes/simhost.md, test/lab/README.md). Needs root.
// Node only, no vscode: used by test/ssh and by anything else that needs hosts.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ClusterHost, etcHostsLines, knownHostsLine, writeLoginHomes } from './cluster';
import { defaultUsers, ExtraHostKeyType, HostKeyLines, keygen, LabPubKeys, LabUser, makeBootStates, prepareHostDir } from './hostdir';
import { LabProcess, processesInNamespaceOf } from './procs';
import { checkNetwork, defaultNetwork, LabNetwork, netnsFor, NetnsSpec, setUpBridge, setUpNetns } from './net';
import { defaultRecordsPath, LAB_CGROUPS, procStart, Records, undo } from './records';
import { freePort } from './ports';
import { shiftNetwork, shiftRecordsPath } from './sideBySide';
import { LabSlurm, PreparedSlurm, prepareSlurm, waitSlurmIdle } from './slurm';

import { cleanupStale } from './records';

export { cleanupStale, defaultRecordsPath } from './records';
export { derivedProfile, recordingName } from './profile';
export { defaultUsers } from './hostdir';
export { defaultNetwork } from './net';
export type { LabProcess } from './procs';
export type { ExtraHostKeyType, LabUser } from './hostdir';
export type { LabNetwork } from './net';
export { inHost } from './slurm';
export type { LabSlurm, PreparedSlurm } from './slurm';

export interface LabHostSpec {
  name: string;
  /** Folder name under test/lab/profiles, or an absolute path to a profile folder. */
  profile: string;
  /** Loopback port; default: a free one. Ignored with netns (port 22). */
  port?: number;
  /** Own address 10.250.<subnet>.x:22 in its own network namespace behind the lab's bridge. */
  netns?: boolean;
  /** Login node: gdr has ~/.ssh/id_ed25519 (authorized for gdr on every host) and a known_hosts
   *  with every host under its name and address, for real ssh/pdsh/clush from here. */
  login?: boolean;
  users?: LabUser[];
  /** Password and keyboard-interactive auth (default true). */
  passwordAuth?: boolean;
  /** Milliseconds a fake command waits before replying, by command name; merged over the profile's `delays`. */
  delays?: Record<string, number>;
  /** Host keys sshd serves besides ed25519 (known_hosts lines in `LabHost.extraHostKeyLines`). */
  extraHostKeys?: ExtraHostKeyType[];
  /** Shell lines put first in every user's ~/.bashrc, before its "not interactive: return": what a
   *  site's login script runs (and prints) in every SSH session, commands included (Debian's bash
   *  reads ~/.bashrc when sshd starts it). */
  bashrcFirst?: string;
}

/** One call of a fake command: `lcAll` is the LC_ALL it ran under (null: unset). */
export interface LabCall {
  time: number;
  uid: number;
  lcAll: string | null;
  cmd: string;
  args: string[];
}

export interface LabHost {
  name: string;
  address: string;
  port: number;
  /** Its network namespace (netns hosts), for `ip netns exec`. */
  netns?: string;
  hostDir: string;
  /** known_hosts line for the current host key, and for the rotated one. */
  hostKeyLine: string;
  rotatedHostKeyLine: string;
  /** known_hosts lines for the host keys of `extraHostKeys`, by type. */
  extraHostKeyLines: Partial<Record<ExtraHostKeyType, string>>;
  users: LabUser[];
  sshdLogPath: string;
  /** Upper dir of the host's copy-on-write /etc: every write to /etc lands here. */
  etcUpperDir: string;
  callLogPath: string;
  /** <cmd>.hang (seconds), <cmd>.drop (lines), <cmd>.flood and <cmd>.flood-stderr (bytes) fault controls; see setFault. */
  controlDir: string;
  unsharePid: number;
  /** PID (outside the namespace) of the listening sshd. */
  listenerPid(): number;
  /** Live processes inside the host (listener, session sshds, commands), outside PIDs. */
  processes(): LabProcess[];
  calls(): LabCall[];
  /** sudo's own log of this host, one line per run or refusal (`… : 1 incorrect password attempt ; …`). */
  sudoLog(): string[];
  /**
   * hang: sleep n s first; drop: print n lines, then kill the session's sshd; flood / flood-stderr: print n more bytes
   * on stdout / stderr.
   */
  setFault(cmd: string, kind: 'hang' | 'drop' | 'flood' | 'flood-stderr', n: number): void;
  clearFaults(): void;
  /** Swaps in the rotated host key and SIGHUPs the listener; resolves when it listens again. */
  rotateHostKey(): Promise<void>;
}

export interface Lab {
  dir: string;
  hosts: LabHost[];
  host(name: string): LabHost;
  knownHostsPath: string;
  /** ssh_config with one `Host <name>` entry per host (user gdr, plain key, strict checking). */
  sshConfigPath: string;
  /** `cluster`: the key login nodes give gdr (authorized for gdr everywhere when a login node exists). */
  keys: { plain: string; encrypted: string; passphrase: string; unauthorized: string; cluster: string };
  network: LabNetwork;
  /** The Slurm cluster (nodes, partition, slurm.conf and log paths), when `slurm` was asked for. */
  slurm?: PreparedSlurm;
  /** Every recorded unshare PID. */
  pids: number[];
  stop(): Promise<void>;
}

export interface LabOptions {
  hosts: LabHostSpec[];
  /** Lab folder; default a new one in os.tmpdir(). Must be traversable by the hosts' users. */
  dir?: string;
  recordsPath?: string;
  /** Per host start (default 60 s; a busy 2-CPU runner needs tens of seconds for 16+ hosts). */
  readyTimeoutMs?: number;
  /** Bridge and 10.250.<subnet>.0/24 of the netns hosts (default gdrbr0, subnet 0): labs
   *  running at the same time need different ones. */
  network?: LabNetwork;
  /** Real Slurm (munge, slurmctld, slurmd) across netns hosts; startLab returns once all nodes are idle. */
  slurm?: LabSlurm;
}

const labSrc = __dirname;
export const passphrase = 'gdr-lab-passphrase';

/** Throws unless the lab can run here (root, sshd installed). */
export function assertLabCanRun(): void {
  if (process.getuid?.() !== 0) throw new Error('the simulated-host lab needs root (mount, unshare, netns); run the ssh tests as root');
  for (const f of ['/usr/sbin/sshd', '/usr/bin/ssh-keygen', '/usr/bin/unshare', '/usr/bin/sudo']) {
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: run test/lab/install.sh (as root) first`);
  }
}

// The hosts' users reach fakecmd.sh and calls.log through every parent folder.
function assertTraversable(dir: string): void {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    if (!(fs.statSync(d).mode & 0o001)) throw new Error(`${d} is not traversable by other users; choose a lab dir under /tmp`);
  }
}

// Host names go into /etc/hosts, slurm.conf, netns names and command lines: plain labels only.
function checkSpecs(specs: readonly LabHostSpec[]): void {
  const seen = new Set<string>();
  for (const s of specs) {
    if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(s.name)) throw new Error(`lab host name must be 1-40 of [a-z0-9-]: ${s.name}`);
    if (seen.has(s.name)) throw new Error(`lab host ${s.name} given twice`);
    seen.add(s.name);
  }
}

async function waitListening(logPath: string, child: ChildProcess, times: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = fs.readFileSync(logPath, 'utf8');
    if (log.split('Server listening').length - 1 >= times) return;
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      throw new Error(`host did not start (${logPath}):\n${log.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A host whose folder is ready: where it listens, its namespace, its key lines. */
interface PlannedHost extends ClusterHost {
  spec: LabHostSpec;
  ns?: NetnsSpec;
  rotated: string;
  extra: HostKeyLines['extra'];
}

/** Where each host listens (all first: every /etc/hosts names them all), then its folder. */
async function planHosts(dir: string, opts: LabOptions, network: LabNetwork, pub: LabPubKeys): Promise<PlannedHost[]> {
  const places: { spec: LabHostSpec; ns?: NetnsSpec; port: number; name: string; netns: boolean; address: string }[] = [];
  let netIndex = 0;
  for (const spec of opts.hosts) {
    const ns = spec.netns ? netnsFor(network, netIndex++, spec.name) : undefined;
    places.push({
      spec,
      ns,
      name: spec.name,
      netns: !!ns,
      address: ns?.address ?? '127.0.0.1',
      port: ns ? 22 : (spec.port ?? (await freePort())),
    });
  }
  const profileDirOf = (spec: LabHostSpec) => (path.isAbsolute(spec.profile) ? spec.profile : path.join(labSrc, 'profiles', spec.profile));
  const boots = await makeBootStates(dir, opts.hosts.map(profileDirOf));
  return places.map((p) => {
    const { spec } = p;
    const profileDir = profileDirOf(spec);
    const { h, current, rotated, extra } = prepareHostDir(
      dir,
      {
        name: spec.name,
        profileDir,
        users: spec.users ?? defaultUsers,
        passwordAuth: spec.passwordAuth ?? true,
        delays: spec.delays,
        address: p.ns?.address,
        port: p.port,
        hostsLines: etcHostsLines(p, places),
        extraHostKeys: spec.extraHostKeys,
        bashrcFirst: spec.bashrcFirst,
      },
      pub,
      boots,
    );
    return { ...p, h, login: !!spec.login, hostKey: current, rotated, extra };
  });
}

function makeKeys(dir: string) {
  const keysDir = path.join(dir, 'keys');
  fs.mkdirSync(keysDir);
  const keys = {
    plain: path.join(keysDir, 'id_ed25519'),
    encrypted: path.join(keysDir, 'id_ed25519_enc'),
    passphrase,
    unauthorized: path.join(keysDir, 'id_ed25519_unauth'),
    cluster: path.join(keysDir, 'id_ed25519_cluster'),
  };
  const pub = {
    plain: keygen(keys.plain, 'gdrlab-plain'),
    encrypted: keygen(keys.encrypted, 'gdrlab-encrypted', passphrase),
    cluster: keygen(keys.cluster, 'gdrlab-cluster'),
  };
  keygen(keys.unauthorized, 'gdrlab-unauthorized');
  return { keys, pub };
}

/** The test side's known_hosts and ssh_config (Host <name>: user gdr, plain key, strict checking). */
function writeClientFiles(dir: string, hosts: readonly LabHost[], key: string): { knownHostsPath: string; sshConfigPath: string } {
  const knownHostsPath = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHostsPath, hosts.map((h) => h.hostKeyLine + '\n').join(''));
  const sshConfigPath = path.join(dir, 'ssh_config');
  fs.writeFileSync(
    sshConfigPath,
    hosts
      .map(
        (h) =>
          `Host ${h.name}\n  HostName ${h.address}\n  Port ${h.port}\n  User gdr\n  IdentityFile ${key}\n` +
          `  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHostsPath}\n  StrictHostKeyChecking yes\n`,
      )
      .join(''),
  );
  return { knownHostsPath, sshConfigPath };
}

/** A test file's lab: says why the lab cannot run here, undoes a crashed run of the same records, starts. */
export async function startTestLab(opts: LabOptions): Promise<Lab> {
  assertLabCanRun();
  await cleanupStale(opts.recordsPath);
  return startLab(opts);
}

/** Starts the hosts (in parallel); refuses while a previous run's records exist. */
export async function startLab(opts: LabOptions): Promise<Lab> {
  assertLabCanRun();
  const network = shiftNetwork(opts.network ?? defaultNetwork);
  checkNetwork(network);
  checkSpecs(opts.hosts);
  const recordsPath = shiftRecordsPath(opts.recordsPath ?? defaultRecordsPath);
  if (fs.existsSync(recordsPath)) {
    throw new Error(
      `a previous lab run left records in ${recordsPath}; call cleanupStale() (or delete the file once its processes and links are gone)`,
    );
  }
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gdrlab-'));
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  assertTraversable(dir);
  const records = new Records(recordsPath, dir);
  const children: ChildProcess[] = [];
  const stop = async () => {
    await undo(records.items);
    // ref(): a bare script awaiting stop() must not exit (children unref'd, loop empty) before the records go.
    await Promise.all(
      children.map((c) =>
        c.exitCode !== null || c.signalCode !== null
          ? undefined
          : new Promise((r) => {
              c.ref();
              c.once('exit', r);
            }),
      ),
    );
    fs.rmSync(recordsPath, { force: true });
  };
  try {
    records.claim();
    const { keys, pub } = makeKeys(dir);
    const hasLogin = opts.hosts.some((s) => s.login);
    const planned = await planHosts(dir, opts, network, hasLogin ? pub : { ...pub, cluster: undefined });
    writeLoginHomes(planned, keys.cluster);
    const slurm = opts.slurm ? prepareSlurm(dir, opts.slurm, planned) : undefined;
    if (planned.some((p) => p.ns)) setUpBridge(records, network);
    setUpNetns(
      records,
      network.bridge,
      planned.flatMap((p) => (p.ns ? [p.ns] : [])),
    );
    const timeoutMs = opts.readyTimeoutMs ?? 60000; // a host that fails exits at once; only a hang waits this long
    const started = planned.map((p) => startHost(p, records, timeoutMs));
    children.push(...started.map((s) => s.child));
    await Promise.all(started.map((s) => s.ready));
    const hosts = started.map((s) => s.host);
    if (slurm) await waitSlurmIdle(slurm, hosts.find((h) => h.name === slurm.controller)!.listenerPid(), timeoutMs + 20000);

    const { knownHostsPath, sshConfigPath } = writeClientFiles(dir, hosts, keys.plain);
    return {
      dir,
      hosts,
      knownHostsPath,
      sshConfigPath,
      keys,
      network,
      stop,
      slurm,
      pids: hosts.map((h) => h.unsharePid),
      host(name) {
        const h = hosts.find((x) => x.name === name);
        if (!h) throw new Error(`no lab host ${name}`);
        return h;
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

function startHost(p: PlannedHost, records: Records, timeoutMs: number): { host: LabHost; child: ChildProcess; ready: Promise<void> } {
  const { h, ns } = p;
  const sshdLogPath = path.join(h, 'sshd.log');
  const logFd = fs.openSync(sshdLogPath, 'a');
  const unshare = [
    'unshare',
    '--mount',
    '--uts',
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
    '--propagation',
    'private',
    '/bin/sh',
    path.join(h, 'hostinit.sh'),
    h,
  ];
  // A Slurm node with constrainDevices starts in a devices cgroup of its own, as the root of a cgroup namespace:
  // Slurm's step cgroups land under it, apart from the other nodes' (one machine, one devices hierarchy).
  const cgroup = fs.existsSync(path.join(h, 'slurm', 'cgroup.conf'))
    ? path.join(LAB_CGROUPS, `${path.basename(path.dirname(path.dirname(h)))}-${p.name}`)
    : undefined;
  if (cgroup) {
    records.add({ kind: 'cgroup', path: cgroup });
    unshare.splice(1, 0, '--cgroup');
  }
  const inNs = ns ? ['ip', 'netns', 'exec', ns.name, ...unshare] : unshare; // `ip netns exec` execs: same PID
  const argv = cgroup ? ['sh', '-c', 'mkdir -p "$0" && echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, ...inNs] : inNs;
  // detached = own session, away from the test runner's terminal signals. The handle is
  // kept (Node reaps it) but unref'd, so a forgotten stop() shows up as stale records, not a hang.
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  child.unref();
  const pid = child.pid ?? 0;
  records.add({ kind: 'proc', pid, start: procStart(pid) ?? '', host: p.name });
  const hostKey = path.join(h, 'hostkeys', 'ssh_host_ed25519_key');
  let hups = 1;
  const host: LabHost = {
    name: p.name,
    address: p.address,
    port: p.port,
    netns: ns?.name,
    hostDir: h,
    users: p.spec.users ?? defaultUsers,
    sshdLogPath,
    callLogPath: path.join(h, 'calls.log'),
    hostKeyLine: knownHostsLine(p, false),
    rotatedHostKeyLine: knownHostsLine({ ...p, hostKey: p.rotated }, false),
    extraHostKeyLines: Object.fromEntries(Object.entries(p.extra).map(([t, k]) => [t, knownHostsLine({ ...p, hostKey: k }, false)])),
    etcUpperDir: path.join(h, 'etc-upper'),
    controlDir: path.join(h, 'ctl'),
    unsharePid: pid,
    listenerPid: () => childOf(pid),
    processes: () => processesInNamespaceOf(childOf(pid)),
    calls: () => readCalls(path.join(h, 'calls.log')),
    sudoLog: () =>
      fs.existsSync(path.join(h, 'sudo.log')) ? fs.readFileSync(path.join(h, 'sudo.log'), 'utf8').split('\n').filter(Boolean) : [],
    setFault: (cmd, kind, n) => fs.writeFileSync(path.join(h, 'ctl', `${cmd}.${kind}`), `${n}\n`),
    clearFaults: () => fs.readdirSync(path.join(h, 'ctl')).forEach((f) => fs.rmSync(path.join(h, 'ctl', f))),
    async rotateHostKey() {
      for (const ext of ['', '.pub']) fs.copyFileSync(hostKey + '.rotated' + ext, hostKey + ext);
      process.kill(childOf(pid), 'SIGHUP');
      await waitListening(sshdLogPath, child, ++hups, timeoutMs);
    },
  };
  return { host, child, ready: waitListening(sshdLogPath, child, 1, timeoutMs) };
}

/** The only child of an unshare: PID 1 of its namespace, i.e. the listening sshd. */
function childOf(pid: number): number {
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) return Number(p);
    } catch {
      // exited while we looked
    }
  }
  throw new Error(`unshare ${pid} has no child: the host is down`);
}

function readCalls(file: string): LabCall[] {
  const unescape = (s: string) => s.replace(/\\(.)/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c));
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [time, uid, lcAll, cmd, ...args] = line.split('\t');
      return { time: Number(time), uid: Number(uid), lcAll: lcAll.startsWith('=') ? lcAll.slice(1) : null, cmd, args: args.map(unescape) };
    });
}
