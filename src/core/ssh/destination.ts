// Destinations as users write them: `host`, `user@host`, `ssh://user@host:port`, `[v6addr]`.

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
  const host = at >= 0 ? input.slice(at + 1) : input;
  if (host === '' || user === '') throw new DestinationError(`not a host: ${JSON.stringify(text)}`);
  return { host: stripBrackets(host), user, port: null };
}

function parseUri(rest: string, original: string): Destination {
  const m = /^(?:([^@/]+)@)?(\[[^\]]+\]|[^:/@]+)(?::(\d+))?\/?$/.exec(rest);
  if (!m) throw new DestinationError(`not an ssh:// address: ${JSON.stringify(original)}`);
  const port = m[3] === undefined ? null : Number(m[3]);
  if (port !== null && (port < 1 || port > 65535)) throw new DestinationError(`port out of range in ${JSON.stringify(original)}`);
  return { host: stripBrackets(m[2]), user: m[1] === undefined ? null : decodeURIComponent(m[1]), port };
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
