// Decides whether to trust a server's host key before any authentication, following
// StrictHostKeyChecking exactly as OpenSSH does, and records newly accepted keys.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConnectError } from './errors';
import { keyTypeOfBlob } from './fingerprint';
import { checkHostKey, HostKeyVerdict, knownHostsLine, knownHostsName, parseKnownHosts } from './knownHosts';
import { SshPrompts } from './prompts';
import { SshTarget } from './sshConfig';

export interface HostKeyCheck {
  readonly verdict: HostKeyVerdict;
  /** Set when the key was newly written to known_hosts. */
  readonly recordedIn?: string;
}

/** Throws ConnectError(step 'host-key') when the key must not be trusted. */
export async function verifyHostKey(target: SshTarget, keyBlob: Buffer, prompts: SshPrompts): Promise<HostKeyCheck> {
  const host = target.hostKeyAlias ?? target.hostname;
  const name = knownHostsName(host, target.port);
  const files = [...target.userKnownHostsFiles, ...target.globalKnownHostsFiles];
  const entries = files.flatMap((f) => parseKnownHosts(readIfExists(f), f));
  const verdict = checkHostKey(entries, name, keyBlob);
  const mode = target.strictHostKeyChecking;
  switch (verdict.status) {
    case 'known':
      return { verdict };
    case 'revoked':
      throw new ConnectError(target.host, 'host-key', `the host key ${verdict.fingerprint} is marked @revoked in ${verdict.entry.file}:${verdict.entry.line}`);
    case 'changed': {
      if (mode === 'no') return { verdict };
      const known = verdict.known.map((k) => `${k.fingerprint} (${k.entry.file}:${k.entry.line})`).join(', ');
      throw new ConnectError(
        target.host,
        'host-key',
        `REMOTE HOST IDENTIFICATION HAS CHANGED for ${name}: it offered ${verdict.fingerprint}, known_hosts has ${known}. ` +
          `If the host was reinstalled, remove the old line (ssh-keygen -R ${JSON.stringify(name)}) and connect again.`,
      );
    }
    case 'unknown':
      return acceptUnknown(target, name, keyBlob, verdict, prompts);
  }
}

async function acceptUnknown(target: SshTarget, name: string, keyBlob: Buffer, verdict: HostKeyVerdict & { status: 'unknown' }, prompts: SshPrompts): Promise<HostKeyCheck> {
  const mode = target.strictHostKeyChecking;
  const file = target.userKnownHostsFiles[0];
  if (mode === 'yes') {
    throw new ConnectError(target.host, 'host-key', `host key for ${name} is not known (${verdict.fingerprint}) and StrictHostKeyChecking is yes`);
  }
  if (mode === 'ask') {
    const keyType = keyTypeOfBlob(keyBlob) ?? 'unknown';
    const accepted = await prompts.confirmHostKey({ host: name, port: target.port, keyType, fingerprint: verdict.fingerprint, knownHostsFile: file });
    if (!accepted) throw new ConnectError(target.host, 'host-key', `host key ${verdict.fingerprint} for ${name} was not accepted`);
  }
  // `no` records new keys too, as ssh does; only `ask` needed the user's word first.
  if (!file) return { verdict };
  appendLine(file, knownHostsLine(name, keyBlob, target.hashKnownHosts));
  return { verdict, recordedIn: file };
}

function readIfExists(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Appends one line, creating ~/.ssh (0700) and the file (0600) as ssh would. */
function appendLine(file: string, line: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const existing = readIfExists(file);
  const sep = existing === '' || existing.endsWith('\n') ? '' : '\n';
  fs.appendFileSync(file, `${sep}${line}\n`, { mode: 0o600 });
}
