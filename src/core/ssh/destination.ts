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

export class DestinationError extends Error {}

export function parseDestination(text: string): Destination {
  const input = text.trim();
  if (input === '' || /[\s\0]/.test(input)) throw new DestinationError(`not a host: ${JSON.stringify(text)}`);
  if (input.startsWith('ssh://')) return parseUri(input.slice('ssh://'.length), text);
  const at = input.lastIndexOf('@');
  const user = at >= 0 ? input.slice(0, at) : null;
  const hostPort = splitHostPort(at >= 0 ? input.slice(at + 1) : input, text);
  if (hostPort.host === '' || user === '') throw new DestinationError(`not a host: ${JSON.stringify(text)}`);
  return { ...hostPort, user };
}

function parseUri(rest: string, original: string): Destination {
  const m = /^(?:([^@/]+)@)?(\[[^\]]+\]|[^:/@]+)(?::(\d+))?\/?$/.exec(rest);
  if (!m) throw new DestinationError(`not an ssh:// address: ${JSON.stringify(original)}`);
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
    if (!m) throw new DestinationError(`not a host: ${JSON.stringify(original)}`);
    return { host: m[1], port: m[2] ? checkedPort(m[2], original) : null };
  }
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text, port: null };
  const [host, port] = text.split(':');
  return { host, port: port === '' ? null : checkedPort(port, original) };
}

function checkedPort(text: string, original: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new DestinationError(`port out of range in ${JSON.stringify(original)}`);
  return port;
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
