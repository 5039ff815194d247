// Why a host could not be reached, by step, so users see "host key changed" rather than a stack.

/** `kubectl`: a Kubernetes node that kubectl could not reach (its own error text is the message). */
export type ConnectStep = 'config' | 'dns' | 'tcp' | 'host-key' | 'auth' | 'timeout' | 'proxy' | 'protocol' | 'kubectl';

export class ConnectError extends Error {
  constructor(
    readonly host: string,
    readonly step: ConnectStep,
    message: string,
  ) {
    super(`${host}: ${message}`);
  }
}

/** Maps the errors ssh2 and node:net raise to a step, keeping their text. */
export function classifyConnectError(host: string, e: unknown): ConnectError {
  if (e instanceof ConnectError) return e;
  const err = e as NodeJS.ErrnoException & { level?: string };
  const text = err?.message ?? String(e);
  if (err?.code === 'ENOTFOUND' || err?.code === 'EAI_AGAIN')
    return new ConnectError(host, 'dns', `cannot resolve host name (${err.code})`);
  if (err?.code === 'ECONNREFUSED') return new ConnectError(host, 'tcp', 'connection refused');
  if (err?.code === 'EHOSTUNREACH' || err?.code === 'ENETUNREACH') return new ConnectError(host, 'tcp', `unreachable (${err.code})`);
  if (err?.code === 'ECONNRESET') return new ConnectError(host, 'tcp', 'connection reset by peer');
  if (/Timed out while waiting for handshake/i.test(text))
    return new ConnectError(host, 'timeout', 'no SSH banner/handshake before the connect timeout');
  if (err?.level === 'client-authentication' || /authentication methods failed/i.test(text)) {
    return new ConnectError(host, 'auth', 'authentication failed (every method was refused)');
  }
  return new ConnectError(host, 'protocol', text);
}
