// Decides whether to trust a server's host key before any authentication, following
// StrictHostKeyChecking as OpenSSH's check_host_key() does, and records newly accepted keys.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTextIfRegular } from '../regularFile';
import { ConnectError } from './errors';
import { keyTypeOfBlob, openSshKeyTypeName } from './fingerprint';
import { checkHostKey, HostKeyVerdict, KnownHostEntry, knownHostsLine, knownHostsName, parseKnownHosts } from './knownHosts';
import { SshPrompts } from './prompts';
import { SshTarget } from './sshConfig';
import { expandTilde } from './tokens';

export interface HostKeyCheck {
  readonly verdict: HostKeyVerdict;
  /** Set when the key was newly written to known_hosts. */
  readonly recordedIn?: string;
  /**
   * Set when the key differs from known_hosts and StrictHostKeyChecking=no let the connection go
   * on: ssh's warning, line by line. No password may then be sent to this server.
   */
  readonly unsafe?: readonly string[];
}

/** Throws ConnectError(step 'host-key') when the key must not be trusted. */
export async function verifyHostKey(target: SshTarget, keyBlob: Buffer, prompts: SshPrompts): Promise<HostKeyCheck> {
  const name = hostKeyLookupName(target);
  const verdict = lookUp(readKnownHosts(target), target, name, keyBlob);
  switch (verdict.status) {
    case 'known':
      return { verdict };
    case 'revoked':
      // Stricter than ssh, which goes on without passwords under StrictHostKeyChecking=no.
      throw new ConnectError(
        target.host,
        'host-key',
        `the host key ${verdict.fingerprint} is marked @revoked in ${verdict.entry.file}:${verdict.entry.line}`,
      );
    case 'changed':
      return changedKey(target, name, keyBlob, verdict);
    case 'unknown':
      return acceptUnknown(target, name, keyBlob, verdict, prompts);
  }
}

/** The name known_hosts is searched for: HostKeyAlias as it is (no port), else `host` or `[host]:port`. */
export function hostKeyLookupName(target: SshTarget): string {
  return target.hostKeyAlias ?? knownHostsName(target.hostname, target.port);
}

/** Every entry of the user's and the global known_hosts files (`~` expanded in the global ones, as ssh does). */
export function readKnownHosts(target: SshTarget): KnownHostEntry[] {
  const files = [...target.userKnownHostsFiles, ...target.globalKnownHostsFiles.map((f) => expandTilde(f, os.homedir()))];
  return files.flatMap((f) => parseKnownHosts(readIfExists(f), f));
}

/** As ssh: on a port other than 22 and without HostKeyAlias, a key known for the bare host name also holds. */
function lookUp(entries: readonly KnownHostEntry[], target: SshTarget, name: string, keyBlob: Buffer): HostKeyVerdict {
  const verdict = checkHostKey(entries, name, keyBlob);
  if (verdict.status !== 'unknown' || target.hostKeyAlias !== null || target.port === 22) return verdict;
  const bare = checkHostKey(entries, target.hostname, keyBlob);
  return bare.status === 'known' ? bare : verdict;
}

function changedKey(target: SshTarget, name: string, keyBlob: Buffer, verdict: HostKeyVerdict & { status: 'changed' }): HostKeyCheck {
  if (target.strictHostKeyChecking === 'no') return { verdict, unsafe: changedKeyWarning(target, keyBlob, verdict) };
  const known = verdict.known.map((k) => `${k.fingerprint} (${k.entry.file}:${k.entry.line})`).join(', ');
  throw new ConnectError(
    target.host,
    'host-key',
    `REMOTE HOST IDENTIFICATION HAS CHANGED for ${name}: it offered ${verdict.fingerprint}, known_hosts has ${known}. ` +
      `If the host was reinstalled, remove the old line (ssh-keygen -R ${JSON.stringify(name)}) and connect again.`,
  );
}

/** ssh's warn_changed_key() and what check_host_key() adds when it goes on without passwords. */
function changedKeyWarning(target: SshTarget, keyBlob: Buffer, verdict: HostKeyVerdict & { status: 'changed' }): string[] {
  const type = openSshKeyTypeName(keyTypeOfBlob(keyBlob) ?? 'unknown');
  const offending = verdict.known[0].entry;
  const global = target.globalKnownHostsFiles[0];
  const addIn = target.userKnownHostsFiles[0] ?? (global !== undefined ? expandTilde(global, os.homedir()) : undefined);
  return [
    '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
    '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
    '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
    'IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!',
    'Someone could be eavesdropping on you right now (man-in-the-middle attack)!',
    'It is also possible that a host key has just been changed.',
    `The fingerprint for the ${type} key sent by the remote host is`,
    `${verdict.fingerprint}.`,
    'Please contact your system administrator.',
    ...(addIn !== undefined ? [`Add correct host key in ${addIn} to get rid of this message.`] : []),
    `Offending ${openSshKeyTypeName(offending.keyType)} key in ${offending.file}:${offending.line}`,
    'Password authentication is disabled to avoid man-in-the-middle attacks.',
    'Keyboard-interactive authentication is disabled to avoid man-in-the-middle attacks.',
  ];
}

async function acceptUnknown(
  target: SshTarget,
  name: string,
  keyBlob: Buffer,
  verdict: HostKeyVerdict & { status: 'unknown' },
  prompts: SshPrompts,
): Promise<HostKeyCheck> {
  const mode = target.strictHostKeyChecking;
  const file = target.userKnownHostsFiles[0];
  const refuse = (why: string) =>
    new ConnectError(target.host, 'host-key', `host key for ${name} is not known (${verdict.fingerprint}) and ${why}`);
  // ssh accepts a new key only by writing it down: with nowhere to write it, no mode accepts it.
  if (file === undefined) throw refuse('there is no known_hosts file to record it in (UserKnownHostsFile none)');
  if (/[@?*#[\]|'\\"]/.test(target.hostname))
    throw refuse(`the host name ${JSON.stringify(target.hostname)} cannot be recorded in known_hosts`);
  if (mode === 'yes') throw refuse('StrictHostKeyChecking is yes');
  if (mode === 'ask') {
    const keyType = keyTypeOfBlob(keyBlob) ?? 'unknown';
    const accepted = await prompts.confirmHostKey({
      host: name,
      port: target.port,
      keyType,
      fingerprint: verdict.fingerprint,
      knownHostsFile: file,
    });
    if (!accepted) throw new ConnectError(target.host, 'host-key', `host key ${verdict.fingerprint} for ${name} was not accepted`);
  }
  // `no` records new keys too, as ssh does; only `ask` needed the user's word first.
  appendLine(file, knownHostsLine(name, keyBlob, target.hashKnownHosts));
  return { verdict, recordedIn: file };
}

/** Far beyond any real known_hosts (a line per host key); a larger file, a FIFO or a device reads as empty. */
const MAX_KNOWN_HOSTS_BYTES = 64 * 1024 * 1024;

function readIfExists(file: string): string {
  return readTextIfRegular(file, MAX_KNOWN_HOSTS_BYTES) ?? '';
}

/** Appends one line, creating ~/.ssh (0700) and the file (0600) as ssh would. */
function appendLine(file: string, line: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const existing = readIfExists(file);
  const sep = existing === '' || existing.endsWith('\n') ? '' : '\n';
  fs.appendFileSync(file, `${sep}${line}\n`, { mode: 0o600 });
}
