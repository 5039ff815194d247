// One host's folder, built before the host starts: profile fakes, its /etc changes (users,
// sudoers, authorized keys, /etc/hosts; see etc.ts), homes, host keys, sshd_config and
// (own-address hosts) its address. hostinit.sh reads it from inside the host's namespaces.
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeEtcUpper, writeHomes, writeProfileEtc } from './etc';
import { writeEd25519Key } from './keys';
import { Profile, materialiseProfile } from './profile';
import { writeCmdlineAndDmi, writeGids, writeIommuGroups, writePciState } from './pciState';
import { buildSysfs, SysfsSpec } from './sysfs';

export interface LabUser {
  name: string;
  uid: number;
  sudo: 'nopasswd' | 'password' | 'none';
  /** Login password; undefined: key only. */
  password?: string;
  /** Which lab client keys may log in. */
  keys: ('plain' | 'encrypted')[];
}

export const defaultUsers: LabUser[] = [
  { name: 'gdr', uid: 1500, sudo: 'nopasswd', password: 'gdr-lab-pw', keys: ['plain', 'encrypted'] },
  { name: 'pwuser', uid: 1501, sudo: 'password', password: 'pwuser-lab-pw', keys: [] },
  { name: 'root', uid: 0, sudo: 'none', keys: ['plain'] },
];

/** Public key lines of the lab's client keys; `cluster` is authorized for gdr when the lab has a login node. */
export interface LabPubKeys {
  plain: string;
  encrypted: string;
  cluster?: string;
}

export interface HostDirSpec {
  name: string;
  profileDir: string;
  users: LabUser[];
  passwordAuth: boolean;
  delays?: Record<string, number>;
  /** Own address (netns host) or undefined (loopback). */
  address?: string;
  port: number;
  /** Appended to its /etc/hosts. */
  hostsLines: string;
  /** Host keys sshd serves besides its ed25519 one. */
  extraHostKeys?: ExtraHostKeyType[];
  /** Lines put first in every user's ~/.bashrc (see LabHostSpec). */
  bashrcFirst?: string;
}

/** Host key types a lab host can serve besides ed25519 (made by ssh-keygen). */
export type ExtraHostKeyType = 'ecdsa' | 'rsa';

/** Boot states already made in this lab, by profile folder (see bootstate.sh). */
export type BootStates = Map<string, string>;

const labSrc = __dirname;

export function keygen(file: string, comment: string, pass = ''): string {
  return hostKeygen(file, 'ed25519', comment, pass);
}

/** ssh-keygen's own key of that type (its default size); returns the .pub line. */
function hostKeygen(file: string, type: 'ed25519' | ExtraHostKeyType, comment: string, pass = ''): string {
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', pass, '-C', comment, '-f', file]);
  return fs.readFileSync(file + '.pub', 'utf8').trim();
}

function sshdConfig(h: string, address: string, port: number, passwordAuth: boolean, extraKeys: readonly ExtraHostKeyType[]): string {
  const pw = passwordAuth ? 'yes' : 'no';
  return [
    `ListenAddress ${address}:${port}`,
    `HostKey ${h}/hostkeys/ssh_host_ed25519_key`,
    ...extraKeys.map((t) => `HostKey ${h}/hostkeys/ssh_host_${t}_key`),
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

/** The ed25519 key lines (current, rotated) and those of the extra types, without host pattern. */
export interface HostKeyLines {
  current: string;
  rotated: string;
  extra: Partial<Record<ExtraHostKeyType, string>>;
}

/** Writes <dir>/hosts/<name>; returns the host dir and its host key lines. */
export function prepareHostDir(dir: string, spec: HostDirSpec, pub: LabPubKeys, boots: BootStates): { h: string } & HostKeyLines {
  const h = path.join(dir, 'hosts', spec.name);
  for (const sub of ['etc-upper', 'etc-work', 'ctl', 'hostkeys', 'home']) fs.mkdirSync(path.join(h, sub), { recursive: true });
  fs.chmodSync(path.join(dir, 'hosts'), 0o755);
  fs.chmodSync(h, 0o755);
  const profile = materialiseProfile(spec.profileDir, h, spec.delays);
  for (const f of ['fakecmd.sh', 'fakeperftest.sh', 'fakenccltests.sh', 'hostinit.sh'])
    fs.copyFileSync(path.join(labSrc, f), path.join(h, f));
  // Verbatim: the PCI tree's links are relative, as in the kernel's sysfs.
  fs.cpSync(boots.get(spec.profileDir)!, path.join(h, 'prof', 'boot'), { recursive: true, verbatimSymlinks: true });
  fs.writeFileSync(path.join(h, 'hostname'), spec.name + '\n');
  if (spec.address) fs.writeFileSync(path.join(h, 'address'), spec.address + '/24\n');
  const authorized: Record<string, string> = {};
  for (const u of spec.users) {
    const lines = u.keys.map((k) => pub[k]);
    if (u.name === 'gdr' && pub.cluster) lines.push(pub.cluster); // the login node's gdr reaches every host
    authorized[u.name] = lines.map((l) => l + '\n').join('');
  }
  writeEtcUpper(h, spec.users, authorized, spec.hostsLines, profile.environment, profile.etcFiles);
  writeProfileEtc(h, path.join(h, 'prof', 'files'));
  writeHomes(h, spec.users, spec.bashrcFirst, path.join(h, 'prof', 'files', 'home'));
  const callLogPath = path.join(h, 'calls.log');
  fs.writeFileSync(callLogPath, '');
  fs.chmodSync(callLogPath, 0o666); // every user inside the host appends to it

  const hostKey = path.join(h, 'hostkeys', 'ssh_host_ed25519_key');
  const keyLine = (k: string) => k.split(' ').slice(0, 2).join(' ');
  const current = keyLine(writeEd25519Key(hostKey, `gdrlab-${spec.name}`));
  const rotated = keyLine(writeEd25519Key(hostKey + '.rotated', `gdrlab-${spec.name}-rotated`));
  const extraTypes = spec.extraHostKeys ?? [];
  const extra: HostKeyLines['extra'] = {};
  for (const t of extraTypes) extra[t] = keyLine(hostKeygen(path.join(h, 'hostkeys', `ssh_host_${t}_key`), t, `gdrlab-${spec.name}-${t}`));
  fs.writeFileSync(
    path.join(h, 'sshd_config'),
    sshdConfig(h, spec.address ? '0.0.0.0' : '127.0.0.1', spec.port, spec.passwordAuth, extraTypes),
  );
  return { h, current, rotated, extra };
}

/** The profile's PCI and RDMA state besides the tree: lspci sections, ACS words, IOMMU groups, GIDs, cmdline, DMI. */
function pciBootState(profile: Profile, spec: SysfsSpec, state: string): void {
  if (profile.lspci) writePciState(spec, profile.lspci, state, profile.acs ?? 'recorded');
  if (profile.iommu) writeIommuGroups(spec, state, profile.iommu.type);
  if (profile.gids) writeGids(spec, state, profile.gids);
  writeCmdlineAndDmi(profile, state);
}

/**
 * The boot-time kernel state of each profile (see bootstate.sh), made once per profile and lab,
 * all profiles in parallel, each from a scratch host folder. Returns the state folder by profile.
 */
export async function makeBootStates(dir: string, profileDirs: readonly string[]): Promise<BootStates> {
  const unique = [...new Set(profileDirs)];
  const states = await Promise.all(
    unique.map(
      (profileDir, i) =>
        new Promise<string>((resolve, reject) => {
          const scratch = path.join(dir, 'boot', String(i), 'host');
          const profile = materialiseProfile(profileDir, scratch);
          fs.copyFileSync(path.join(labSrc, 'fakecmd.sh'), path.join(scratch, 'fakecmd.sh'));
          const state = path.join(dir, 'boot', String(i), 'state');
          execFile(
            'unshare',
            ['--mount', '--propagation', 'private', '/bin/sh', path.join(labSrc, 'bootstate.sh'), scratch, state],
            (err, _out, stderr) => {
              if (err) return reject(new Error(`boot state of ${profileDir}: ${err.message}\n${stderr}`));
              // Every host gets a PCI tree, empty where the profile has none: the test machine's own never shows.
              const sysfs = path.join(scratch, 'prof', 'sysfs.json');
              const spec = fs.existsSync(sysfs) ? (JSON.parse(fs.readFileSync(sysfs, 'utf8')) as SysfsSpec) : { pci: {} };
              try {
                buildSysfs(spec, state);
                pciBootState(profile, spec, state);
              } catch (e) {
                return reject(new Error(`boot state of ${profileDir}: ${e instanceof Error ? e.message : String(e)}`));
              }
              resolve(state);
            },
          );
        }),
    ),
  );
  return new Map(unique.map((p, i) => [p, states[i]]));
}
