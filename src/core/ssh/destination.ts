// Destinations as users write them: `host`, `user@host`, `host:port`, `user@host:port`,
// `ssh://user@host:port`, `[v6addr]`, `[v6addr]:port`. A ProxyJump hop is read the same way, as
// OpenSSH's parse_user_host_port() reads it. On ssh's own command line `host:port` is not a port
// (ssh would look up a host named "host:port", which cannot exist); Add Host suggests that form,
// so gdr-doctor reads it as the port and hands ssh `-p` (see sshG.ts).

export interface Destination {
  readonly host: string;
  readonly user: string | null;
  readonly port: number | null;
}

/** What is wrong with a destination, for a message in the user's language (destinationInput.ts). */
export type DestinationProblem = 'not-a-host' | 'no-host' | 'no-user' | 'option-like' | 'shell-characters' | 'port-range' | 'bad-uri';

export class DestinationError extends Error {
  constructor(
    readonly problem: DestinationProblem,
    readonly input: string,
  ) {
    super(ENGLISH[problem].replace('{0}', JSON.stringify(input)));
  }
}

const ENGLISH: Record<DestinationProblem, string> = {
  'not-a-host': 'not a host: {0}',
  'no-host': 'not a host: {0} names no host',
  'no-user': 'not a host: {0} names no user before @',
  'option-like': 'not a host: {0} starts with "-", which ssh would read as an option',
  'shell-characters': 'not a host: {0} holds characters a shell would interpret',
  'port-range': 'port out of range in {0}',
  'bad-uri': 'not an ssh:// address: {0}',
};

/**
 * Host and user names OpenSSH refuses on its command line (ssh.c valid_hostname / valid_ruser: 9.6, and
 * Debian 12's 9.2p1 with its CVE-2023-51385 fix): a leading `-` (read as an option, as in
 * `-oProxyCommand=…`) and what a shell would act on once `%h`/`%r` is expanded into a command.
 */
export const UNSAFE_HOST = /[`'"$\\;&<>|(){},\s\p{Cc}]|^-/u;
export const UNSAFE_USER = /[`'";&<>|(){}\p{Cc}]|^-|\s-|\\$/u;

export function parseDestination(text: string): Destination {
  const input = text.trim();
  if (input === '' || /[\s\0]/.test(input)) throw new DestinationError('not-a-host', text);
  const d = input.startsWith('ssh://') ? parseUri(input.slice('ssh://'.length), text) : parseUserHostPort(input, text);
  if (d.host.startsWith('-') || d.user?.startsWith('-')) throw new DestinationError('option-like', text);
  if (UNSAFE_HOST.test(d.host) || (d.user !== null && UNSAFE_USER.test(d.user))) throw new DestinationError('shell-characters', text);
  return d;
}

function parseUserHostPort(input: string, original: string): Destination {
  const at = input.lastIndexOf('@');
  const user = at >= 0 ? input.slice(0, at) : null;
  const hostPort = splitHostPort(at >= 0 ? input.slice(at + 1) : input, original);
  if (hostPort.host === '') throw new DestinationError('no-host', original);
  if (user === '') throw new DestinationError('no-user', original);
  return { ...hostPort, user };
}

function parseUri(rest: string, original: string): Destination {
  const m = /^(?:([^@/]+)@)?(\[[^\]]+\]|[^:/@]+)(?::(\d+))?\/?$/.exec(rest);
  if (!m) throw new DestinationError('bad-uri', original);
  return {
    host: stripBrackets(m[2]),
    user: m[1] === undefined ? null : decodeURIComponent(m[1]),
    port: m[3] === undefined ? null : checkedPort(m[3], original),
  };
}

/**
 * `host`, `host:port`, `[addr]`, `[addr]:port`. A bare IPv6 address (more than one colon) is a
 * host without a port: only brackets can give it one.
 */
function splitHostPort(text: string, original: string): { host: string; port: number | null } {
  if (text.startsWith('[')) {
    const m = /^\[([^\]]*)\](?::(\d*))?$/.exec(text);
    if (!m) throw new DestinationError('not-a-host', original);
    return { host: m[1], port: m[2] ? checkedPort(m[2], original) : null };
  }
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text, port: null };
  const [host, port] = text.split(':');
  return { host, port: port === '' ? null : checkedPort(port, original) };
}

function checkedPort(text: string, original: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new DestinationError('port-range', original);
  return port;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
