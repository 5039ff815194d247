// A host's /etc changes, written from outside before the host starts: straight into the upper
// dir of its /etc overlay (lower = the real /etc, never written), in the formats useradd,
// chpasswd and sed would leave. Spawning those per user per host took seconds once dozens
// of hosts started at once; plain file writes take milliseconds. Home dirs are built here too
// (skel copies, owned by the user); hostinit.sh copies them into the host's private /home.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LabUser } from './hostdir';

const hashes = new Map<string, string>();

/** SHA-512 crypt of a lab password (what chpasswd writes on Debian 12); the password goes on stdin. */
function cryptHash(password: string): string {
  let h = hashes.get(password);
  if (!h) {
    h = execFileSync('openssl', ['passwd', '-6', '-stdin'], { input: password + '\n', encoding: 'utf8' }).trim();
    hashes.set(password, h);
  }
  return h;
}

/** Writes <upper>/<rel> as `edit` of the lower file's text (new file: of ''), keeping the lower file's mode and owner. */
function upperFile(upper: string, rel: string, edit: (lower: string) => string, mode = 0o644): void {
  const lower = path.join('/etc', rel);
  const st = fs.existsSync(lower) ? fs.statSync(lower) : undefined;
  upperDir(upper, path.dirname(rel));
  const f = path.join(upper, rel);
  fs.writeFileSync(f, edit(st ? fs.readFileSync(lower, 'utf8') : ''));
  fs.chmodSync(f, st ? st.mode & 0o7777 : mode);
  if (st) fs.chownSync(f, st.uid, st.gid);
}

// A dir made in the upper layer shows its own mode in the merged /etc: copy the lower one's.
function upperDir(upper: string, rel: string): void {
  if (rel === '.' || fs.existsSync(path.join(upper, rel))) return;
  upperDir(upper, path.dirname(rel));
  const lower = path.join('/etc', rel);
  const st = fs.existsSync(lower) ? fs.statSync(lower) : undefined;
  fs.mkdirSync(path.join(upper, rel));
  fs.chmodSync(path.join(upper, rel), st ? st.mode & 0o7777 : 0o755);
}

function addUsers(upper: string, users: readonly LabUser[], sudoLog: string): void {
  const passwd = fs.readFileSync('/etc/passwd', 'utf8');
  const today = Math.floor(Date.now() / 86400000);
  const added = users.filter((u) => u.name !== 'root');
  for (const u of added) {
    if (new RegExp(`^${u.name}:`, 'm').test(passwd)) throw new Error(`lab user ${u.name} exists on this machine already`);
  }
  const lines = (f: (u: LabUser) => string) => (text: string) => text + added.map((u) => f(u) + '\n').join('');
  upperFile(
    upper,
    'passwd',
    lines((u) => `${u.name}:x:${u.uid}:${u.uid}::/home/${u.name}:/bin/bash`),
  );
  upperFile(
    upper,
    'group',
    lines((u) => `${u.name}:x:${u.uid}:`),
  );
  upperFile(
    upper,
    'gshadow',
    lines((u) => `${u.name}:!::`),
  );
  const hash = (u: LabUser) => (u.password === undefined ? '!' : cryptHash(u.password));
  const root = users.find((u) => u.name === 'root' && u.password !== undefined);
  upperFile(upper, 'shadow', (text) =>
    lines((u) => `${u.name}:${hash(u)}:${today}:0:99999:7:::`)(root ? text.replace(/^root:[^:]*:/m, `root:${hash(root)}:`) : text),
  );
  const sudo = users.flatMap((u) =>
    u.sudo === 'nopasswd' ? [`${u.name} ALL=(ALL:ALL) NOPASSWD: ALL\n`] : u.sudo === 'password' ? [`${u.name} ALL=(ALL:ALL) ALL\n`] : [],
  );
  // Every sudo run and every refused password, one unwrapped line each, into the host's folder (tests count them).
  const log = `Defaults logfile="${sudoLog}", loglinelen=0\n`;
  upperFile(upper, 'sudoers.d/gdrlab', () => log + sudo.join(''), 0o440);
}

/** Everything the host's /etc differs in; `hostsLines` are appended to /etc/hosts. */
export function writeEtcUpper(
  h: string,
  users: readonly LabUser[],
  authorized: Record<string, string>,
  hostsLines: string,
  environment?: string,
  etcFiles: Record<string, string> = {},
): void {
  const upper = path.join(h, 'etc-upper');
  addUsers(upper, users, path.join(h, 'sudo.log'));
  // Inside the overlay, root-owned: sshd's StrictModes can stay on.
  for (const [user, keys] of Object.entries(authorized)) upperFile(upper, `ssh/authorized_keys/${user}`, () => keys);
  // Without nodelay every wrong password costs ~2 s. pam_loginuid cannot write
  // /proc/self/loginuid in a container and would end every session at once.
  upperFile(upper, 'pam.d/common-auth', (t) => t.replace(/^(auth.*pam_unix\.so.*)$/gm, '$1 nodelay'));
  upperFile(upper, 'pam.d/sshd', (t) => t.replace(/^session\s+required\s+pam_loginuid\.so/m, 'session optional pam_loginuid.so'));
  upperFile(upper, 'hosts', (t) => t + hostsLines);
  // Ubuntu puts /usr/sbin on a user's PATH through /etc/environment; Debian doesn't.
  if (environment !== undefined) upperFile(upper, 'environment', () => environment);
  // The machine's bootloader configuration never shows in a host (a fix could plan an edit of it and
  // remake the machine's grub.cfg): an overlay whiteout hides it unless the profile gives its own.
  for (const rel of ['default/grub', 'kernel/cmdline'])
    if (etcFiles[rel] === undefined && fs.existsSync(path.join('/etc', rel))) {
      upperDir(upper, path.dirname(rel));
      execFileSync('mknod', [path.join(upper, rel), 'c', '0', '0']);
    }
  // A profile's own files under /etc (a bootloader's config, a vendor's unit): checked as plain relative paths.
  for (const [rel, content] of Object.entries(etcFiles)) {
    if (!/^[A-Za-z0-9_.@-]+(\/[A-Za-z0-9_.@-]+)*$/.test(rel) || rel.split('/').includes('..'))
      throw new Error(`etcFiles: ${JSON.stringify(rel)} is not a plain path below /etc`);
    upperFile(upper, rel, () => content);
  }
}

/** The profile's own /etc files (`files/etc/…`, e.g. /etc/nccl.conf), written into the upper layer. */
export function writeProfileEtc(h: string, profileFiles: string): void {
  const etc = path.join(profileFiles, 'etc');
  if (!fs.existsSync(etc)) return;
  for (const rel of fs.readdirSync(etc, { recursive: true, encoding: 'utf8' })) {
    const src = path.join(etc, rel);
    if (fs.statSync(src).isFile()) upperFile(path.join(h, 'etc-upper'), rel, () => fs.readFileSync(src, 'utf8'));
  }
}

/**
 * <h>/home/<user>: /etc/skel as useradd -m copies it, owned by the user (uid = gid); `bashrcFirst` before its ~/.bashrc;
 * then the profile's `files/home/` (e.g. a ~/.nccl.conf), the same for every user.
 */
export function writeHomes(h: string, users: readonly LabUser[], bashrcFirst?: string, profileHome?: string): void {
  for (const u of users.filter((x) => x.name !== 'root')) {
    const home = path.join(h, 'home', u.name);
    fs.cpSync('/etc/skel', home, { recursive: true });
    if (profileHome !== undefined && fs.existsSync(profileHome)) fs.cpSync(profileHome, home, { recursive: true });
    if (bashrcFirst !== undefined) {
      const rc = path.join(home, '.bashrc');
      fs.writeFileSync(rc, `${bashrcFirst}\n${fs.existsSync(rc) ? fs.readFileSync(rc, 'utf8') : ''}`);
    }
    chownTree(home, u.uid, u.uid);
  }
}

export function chownTree(p: string, uid: number, gid: number): void {
  fs.chownSync(p, uid, gid);
  if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) chownTree(path.join(p, e), uid, gid);
}
