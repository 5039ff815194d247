// Test lab: simulated GPU hosts, each a real sshd in its own mount/UTS/PID namespace
// with real users and sudo, and fake GPU/RDMA commands that replay real recorded
// outputs (see /work/shared/notes/simhost.md, test/lab/README.md). Needs root.
// Node only, no vscode: used by test/ssh and by anything else that needs hosts.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { materialiseProfile } from './profile';
import { LabProcess, processesInNamespaceOf } from './procs';
import { setUpBridge, setUpNetns } from './net';
import { defaultRecordsPath, procStart, Records, undo } from './records';

export { cleanupStale, defaultRecordsPath } from './records';
export { recordingName } from './profile';
export type { LabProcess } from './procs';

export interface LabUser {
  name: string;
  uid: number;
  sudo: 'nopasswd' | 'password' | 'none';
  /** Login password; undefined: key only. */
  password?: string;
  /** Which lab client keys may log in. */
  keys: ('plain' | 'encrypted')[];
}

export interface LabHostSpec {
  name: string;
  /** Folder name under test/lab/profiles, or an absolute path to a profile folder. */
  profile: string;
  /** Loopback port; default: a free one. Ignored with netns (port 22). */
  port?: number;
  /** Own address 10.250.0.x:22 in its own network namespace behind bridge gdrbr0. */
  netns?: boolean;
  users?: LabUser[];
  /** Password and keyboard-interactive auth (default true). */
  passwordAuth?: boolean;
  /** Milliseconds a fake command waits before replying, by command name; merged over the profile's `delays`. */
  delays?: Record<string, number>;
}

/** One call of a fake command: `lcAll` is the LC_ALL it ran under (null: unset). */
export interface LabCall { time: number; uid: number; lcAll: string | null; cmd: string; args: string[] }

export interface LabHost {
  name: string;
  address: string;
  port: number;
  hostDir: string;
  /** known_hosts line for the current host key, and for the rotated one. */
  hostKeyLine: string;
  rotatedHostKeyLine: string;
  users: LabUser[];
  sshdLogPath: string;
  /** Upper dir of the host's copy-on-write /etc: every write to /etc lands here. */
  etcUpperDir: string;
  callLogPath: string;
  /** <cmd>.hang (seconds), <cmd>.drop (lines), <cmd>.flood (bytes) fault controls; see setFault. */
  controlDir: string;
  unsharePid: number;
  /** PID (outside the namespace) of the listening sshd. */
  listenerPid(): number;
  /** Live processes inside the host (listener, session sshds, commands), outside PIDs. */
  processes(): LabProcess[];
  calls(): LabCall[];
  /** hang: sleep n s first; drop: print n lines, then kill the session's sshd; flood: print n more bytes. */
  setFault(cmd: string, kind: 'hang' | 'drop' | 'flood', n: number): void;
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
  keys: { plain: string; encrypted: string; passphrase: string; unauthorized: string };
  /** Every recorded unshare PID. */
  pids: number[];
  stop(): Promise<void>;
}

export interface LabOptions {
  hosts: LabHostSpec[];
  /** Lab folder; default a new one in os.tmpdir(). Must be traversable by the hosts' users. */
  dir?: string;
  recordsPath?: string;
  readyTimeoutMs?: number;
}

const labSrc = __dirname;
export const passphrase = 'gdr-lab-passphrase';
export const defaultUsers: LabUser[] = [
  { name: 'gdr', uid: 1500, sudo: 'nopasswd', password: 'gdr-lab-pw', keys: ['plain', 'encrypted'] },
  { name: 'pwuser', uid: 1501, sudo: 'password', password: 'pwuser-lab-pw', keys: [] },
  { name: 'root', uid: 0, sudo: 'none', keys: ['plain'] },
];

/** Throws unless the lab can run here (root, sshd installed). */
export function assertLabCanRun(): void {
  if (process.getuid?.() !== 0) throw new Error('the simulated-host lab needs root (mount, unshare, netns); run the ssh tests as root');
  for (const f of ['/usr/sbin/sshd', '/usr/bin/ssh-keygen', '/usr/bin/unshare', '/usr/bin/sudo']) {
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: run test/lab/install.sh (as root) first`);
  }
}

function keygen(file: string, comment: string, pass = ''): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', pass, '-C', comment, '-f', file]);
  return fs.readFileSync(file + '.pub', 'utf8').trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// The hosts' users reach fakecmd.sh and calls.log through every parent folder.
function assertTraversable(dir: string): void {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    if (!(fs.statSync(d).mode & 0o001)) throw new Error(`${d} is not traversable by other users; choose a lab dir under /tmp`);
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

function sshdConfig(h: string, address: string, port: number, passwordAuth: boolean): string {
  const pw = passwordAuth ? 'yes' : 'no';
  return [
    `ListenAddress ${address}:${port}`,
    `HostKey ${h}/hostkeys/ssh_host_ed25519_key`,
    'PidFile none',
    // Inside the host's /etc overlay, root-owned: StrictModes can stay on.
    'AuthorizedKeysFile /etc/ssh/authorized_keys/%u',
    'PermitRootLogin prohibit-password',
    `PasswordAuthentication ${pw}`,
    `KbdInteractiveAuthentication ${pw}`,
    'UsePAM yes',
    'UseDNS no',
    'PrintMotd no',
    'MaxStartups 100:30:200',
    'Subsystem sftp /usr/lib/openssh/sftp-server',
    '',
  ].join('\n');
}

/** Starts the hosts (in parallel); refuses while a previous run's records exist. */
export async function startLab(opts: LabOptions): Promise<Lab> {
  assertLabCanRun();
  const recordsPath = opts.recordsPath ?? defaultRecordsPath;
  if (fs.existsSync(recordsPath)) {
    throw new Error(`a previous lab run left records in ${recordsPath}; call cleanupStale() (or delete the file once its processes and links are gone)`);
  }
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gdrlab-'));
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  assertTraversable(dir);
  const records = new Records(recordsPath, dir);
  const children: ChildProcess[] = [];
  const stop = async () => {
    await undo(records.items);
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    fs.rmSync(recordsPath, { force: true });
  };
  try {
    records.claim();
    const keysDir = path.join(dir, 'keys');
    fs.mkdirSync(keysDir);
    const keys = { plain: path.join(keysDir, 'id_ed25519'), encrypted: path.join(keysDir, 'id_ed25519_enc'), passphrase, unauthorized: path.join(keysDir, 'id_ed25519_unauth') };
    const pub = { plain: keygen(keys.plain, 'gdrlab-plain'), encrypted: keygen(keys.encrypted, 'gdrlab-encrypted', passphrase) };
    keygen(keys.unauthorized, 'gdrlab-unauthorized');

    if (opts.hosts.some((h) => h.netns)) setUpBridge(records);
    let netIndex = 0;
    const hosts: LabHost[] = [];
    const starts: Promise<void>[] = [];
    for (const spec of opts.hosts) {
      const ns = spec.netns ? { name: `gdrlab-${spec.name}`, veth: `gdrv${netIndex}`, address: `10.250.0.${11 + netIndex++}` } : undefined;
      const port = ns ? 22 : (spec.port ?? (await freePort()));
      const { host, child, ready } = startHost(dir, spec, ns, port, pub, records, opts.readyTimeoutMs ?? 10000);
      hosts.push(host);
      children.push(child);
      starts.push(ready);
    }
    await Promise.all(starts);

    const knownHostsPath = path.join(dir, 'known_hosts');
    fs.writeFileSync(knownHostsPath, hosts.map((h) => h.hostKeyLine + '\n').join(''));
    const sshConfigPath = path.join(dir, 'ssh_config');
    fs.writeFileSync(sshConfigPath, hosts.map((h) => `Host ${h.name}\n  HostName ${h.address}\n  Port ${h.port}\n  User gdr\n  IdentityFile ${keys.plain}\n  IdentitiesOnly yes\n  UserKnownHostsFile ${knownHostsPath}\n  StrictHostKeyChecking yes\n`).join(''));
    return {
      dir, hosts, knownHostsPath, sshConfigPath, keys, stop,
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

function startHost(
  dir: string, spec: LabHostSpec, ns: { name: string; veth: string; address: string } | undefined, port: number,
  pub: { plain: string; encrypted: string }, records: Records, timeoutMs: number,
): { host: LabHost; child: ChildProcess; ready: Promise<void> } {
  const h = path.join(dir, 'hosts', spec.name);
  for (const sub of ['etc-upper', 'etc-work', 'ctl', 'hostkeys', 'authorized_keys']) fs.mkdirSync(path.join(h, sub), { recursive: true });
  fs.chmodSync(path.join(dir, 'hosts'), 0o755);
  fs.chmodSync(h, 0o755);
  const profileDir = path.isAbsolute(spec.profile) ? spec.profile : path.join(labSrc, 'profiles', spec.profile);
  materialiseProfile(profileDir, h, spec.delays);
  for (const f of ['fakecmd.sh', 'hostinit.sh']) fs.copyFileSync(path.join(labSrc, f), path.join(h, f));
  fs.writeFileSync(path.join(h, 'hostname'), spec.name + '\n');
  const users = spec.users ?? defaultUsers;
  fs.writeFileSync(path.join(h, 'users.tsv'), users.map((u) => `${u.name}\t${u.uid}\t${u.sudo}\t${u.password ?? '-'}\n`).join(''));
  for (const u of users) fs.writeFileSync(path.join(h, 'authorized_keys', u.name), u.keys.map((k) => pub[k] + '\n').join(''));
  const callLogPath = path.join(h, 'calls.log');
  fs.writeFileSync(callLogPath, '');
  fs.chmodSync(callLogPath, 0o666); // every user inside the host appends to it

  const hostKey = path.join(h, 'hostkeys', 'ssh_host_ed25519_key');
  const keyLine = (k: string) => k.split(' ').slice(0, 2).join(' ');
  const current = keyLine(keygen(hostKey, `gdrlab-${spec.name}`));
  const rotated = keyLine(keygen(hostKey + '.rotated', `gdrlab-${spec.name}-rotated`));
  const address = ns ? ns.address : '127.0.0.1';
  const hostPattern = port === 22 ? address : `[${address}]:${port}`;
  fs.writeFileSync(path.join(h, 'sshd_config'), sshdConfig(h, ns ? '0.0.0.0' : address, port, spec.passwordAuth ?? true));

  if (ns) setUpNetns(records, ns);
  const sshdLogPath = path.join(h, 'sshd.log');
  const logFd = fs.openSync(sshdLogPath, 'a');
  const unshare = ['unshare', '--mount', '--uts', '--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'private', '/bin/sh', path.join(h, 'hostinit.sh'), h];
  const argv = ns ? ['ip', 'netns', 'exec', ns.name, ...unshare] : unshare; // `ip netns exec` execs: same PID
  // detached = own session, away from the test runner's terminal signals. The handle is
  // kept (Node reaps it) but unref'd, so a forgotten stop() shows up as stale records, not a hang.
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  child.unref();
  const pid = child.pid ?? 0;
  records.add({ kind: 'proc', pid, start: procStart(pid) ?? '', host: spec.name });
  let hups = 1;
  const host: LabHost = {
    name: spec.name, address, port, hostDir: h, users, sshdLogPath, callLogPath,
    hostKeyLine: `${hostPattern} ${current}`, rotatedHostKeyLine: `${hostPattern} ${rotated}`,
    etcUpperDir: path.join(h, 'etc-upper'), controlDir: path.join(h, 'ctl'), unsharePid: pid,
    listenerPid: () => childOf(pid),
    processes: () => processesInNamespaceOf(childOf(pid)),
    calls: () => readCalls(callLogPath),
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
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
    const [time, uid, lcAll, cmd, ...args] = line.split('\t');
    return { time: Number(time), uid: Number(uid), lcAll: lcAll.startsWith('=') ? lcAll.slice(1) : null, cmd, args: args.map(unescape) };
  });
}
