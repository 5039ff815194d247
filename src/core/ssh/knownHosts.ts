// known_hosts reading and host-key checking, as OpenSSH does it (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT").
// Pure: callers pass file contents; knownHostsFile.ts does the I/O.
import { createHmac, randomBytes } from 'node:crypto';
import { sha256Fingerprint, keyTypeOfBlob } from './fingerprint';
import { matchPatternList } from './hostPatterns';

export interface KnownHostEntry {
  readonly file: string;
  readonly line: number;
  readonly marker: 'revoked' | 'cert-authority' | null;
  /** Plain patterns, or null for a hashed (`|1|salt|hash`) entry. */
  readonly patterns: readonly string[] | null;
  readonly hashed: { readonly salt: Buffer; readonly hash: Buffer } | null;
  readonly keyType: string;
  readonly keyBase64: string;
}

export type HostKeyVerdict =
  | { readonly status: 'known'; readonly entry: KnownHostEntry; readonly fingerprint: string }
  | { readonly status: 'unknown'; readonly fingerprint: string; readonly otherTypes: readonly KnownHostEntry[] }
  | { readonly status: 'changed'; readonly fingerprint: string; readonly known: readonly { entry: KnownHostEntry; fingerprint: string }[] }
  | { readonly status: 'revoked'; readonly entry: KnownHostEntry; readonly fingerprint: string };

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` elsewhere. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** Reads one known_hosts file's text; malformed lines are skipped, as ssh skips them. */
export function parseKnownHosts(text: string, file: string): KnownHostEntry[] {
  const entries: KnownHostEntry[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const entry = parseEntry(raw.trim(), file, i + 1);
    if (entry) entries.push(entry);
  });
  return entries;
}

function parseEntry(line: string, file: string, lineNo: number): KnownHostEntry | null {
  if (line === '' || line.startsWith('#')) return null;
  const fields = line.split(/\s+/);
  let marker: KnownHostEntry['marker'] = null;
  if (fields[0] === '@revoked' || fields[0] === '@cert-authority') {
    marker = fields[0] === '@revoked' ? 'revoked' : 'cert-authority';
    fields.shift();
  } else if (fields[0].startsWith('@')) {
    return null;
  }
  const [hosts, keyType, keyBase64] = fields;
  if (!hosts || !keyType || !keyBase64) return null;
  const hashed = parseHashed(hosts);
  if (hosts.startsWith('|') && !hashed) return null;
  return { file, line: lineNo, marker, patterns: hashed ? null : hosts.split(','), hashed, keyType, keyBase64 };
}

function parseHashed(field: string): KnownHostEntry['hashed'] {
  const m = /^\|1\|([A-Za-z0-9+/=]+)\|([A-Za-z0-9+/=]+)$/.exec(field);
  return m ? { salt: Buffer.from(m[1], 'base64'), hash: Buffer.from(m[2], 'base64') } : null;
}

export function entryMatchesHost(entry: KnownHostEntry, name: string): boolean {
  if (entry.hashed) {
    const digest = createHmac('sha1', entry.hashed.salt).update(name).digest();
    return digest.equals(entry.hashed.hash);
  }
  return matchPatternList(name.toLowerCase(), entry.patterns ?? [], true);
}

/**
 * Checks a server's host key blob against known_hosts entries for `name` (see knownHostsName).
 * `@revoked` wins over everything; `@cert-authority` lines are ignored (gdr-doctor does not
 * verify host certificates, so such a host counts as unknown).
 */
export function checkHostKey(entries: readonly KnownHostEntry[], name: string, keyBlob: Buffer): HostKeyVerdict {
  const fingerprint = sha256Fingerprint(keyBlob);
  const keyBase64 = keyBlob.toString('base64');
  const keyType = keyTypeOfBlob(keyBlob);
  const revoked = entries.find((e) => e.marker === 'revoked' && e.keyBase64 === keyBase64);
  if (revoked) return { status: 'revoked', entry: revoked, fingerprint };
  const forHost = entries.filter((e) => e.marker === null && entryMatchesHost(e, name));
  const same = forHost.find((e) => e.keyBase64 === keyBase64);
  if (same) return { status: 'known', entry: same, fingerprint };
  const sameType = forHost.filter((e) => e.keyType === keyType);
  if (sameType.length > 0) {
    return {
      status: 'changed',
      fingerprint,
      known: sameType.map((entry) => ({ entry, fingerprint: sha256Fingerprint(Buffer.from(entry.keyBase64, 'base64')) })),
    };
  }
  return { status: 'unknown', fingerprint, otherTypes: forHost };
}

/** The line `accept-new` appends; hashed like `HashKnownHosts yes` when asked. */
export function knownHostsLine(name: string, keyBlob: Buffer, hash: boolean, salt?: Buffer): string {
  const keyType = keyTypeOfBlob(keyBlob) ?? 'unknown';
  let hostField = name;
  if (hash) {
    const s = salt ?? randomBytes(20);
    hostField = `|1|${s.toString('base64')}|${createHmac('sha1', s).update(name).digest('base64')}`;
  }
  return `${hostField} ${keyType} ${keyBlob.toString('base64')}`;
}

/**
 * OpenSSH's default HostKeyAlgorithms (9.x), less those ssh2 cannot verify (certificates,
 * security keys). ssh-rsa (SHA-1) is off by default in OpenSSH, so it is not offered here either.
 */
export const DEFAULT_HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
];

/** The known_hosts key type an algorithm's host key has (`rsa-sha2-512` signs with an `ssh-rsa` key). */
const keyTypeOfAlgorithm = (alg: string) => (alg.startsWith('rsa-sha2-') ? 'ssh-rsa' : alg);

/**
 * The host key algorithms to offer for `name`, as ssh's order_hostkeyalgs() orders them: the whole
 * default list when known_hosts has a key of its first type, else the algorithms whose key type
 * known_hosts holds for the host first (in default order), then the rest. So a host known by an
 * ECDSA or RSA key is asked for that key, not for an ed25519 one nobody has seen.
 */
export function orderHostKeyAlgorithms(entries: readonly KnownHostEntry[], name: string): string[] {
  const known = new Set(entries.filter((e) => e.marker === null && entryMatchesHost(e, name)).map((e) => e.keyType));
  const all = DEFAULT_HOST_KEY_ALGORITHMS;
  if (known.has(keyTypeOfAlgorithm(all[0]))) return [...all];
  const preferred = all.filter((a) => known.has(keyTypeOfAlgorithm(a)));
  return [...preferred, ...all.filter((a) => !preferred.includes(a))];
}
