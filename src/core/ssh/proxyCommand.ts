// ProxyCommand as ssh runs it (sshconnect.c ssh_proxy_connect): `%h %k %n %p %r %%` expanded,
// then `exec <command>` under the user's shell ($SHELL, else /bin/sh) so no shell lingers; the
// command's stdin and stdout carry the SSH connection. Its stderr is kept (the tail) to say why
// it ended when the connection fails. ssh ends it with SIGHUP; so does close().
import { ChildProcessByStdio, spawn } from 'node:child_process';
import { Duplex, Readable, Writable } from 'node:stream';
import { UNSAFE_HOST, UNSAFE_USER } from './destination';
import { ConnectError } from './errors';
import { SshTarget } from './sshConfig';
import { expandTokens, PROXY_COMMAND_TOKENS, TokenContext, TokenError } from './tokens';

export interface ProxyProcess {
  /** The transport for ssh2's `sock`. */
  readonly sock: Duplex;
  /** Whether the command exits or closes its output within `ms`: a failed connection is then its doing. */
  endsWithin(ms: number): Promise<boolean>;
  /** Why it ended, with the end of what it printed on stderr; waits a moment for its exit status. */
  endMessage(): Promise<string>;
  close(): void;
}

const STDERR_KEPT = 4096;
const EXIT_WAIT_MS = 2000;

/** The shell command line ssh would run for the target's ProxyCommand. */
export function proxyCommandLine(target: SshTarget, tokens: TokenContext): string {
  const command = target.proxyCommand ?? '';
  try {
    checkTokenValues(command, tokens);
    return expandTokens(`exec ${command}`, tokens, { tokens: PROXY_COMMAND_TOKENS });
  } catch (e) {
    if (e instanceof TokenError) throw new ConnectError(target.host, 'config', `ProxyCommand: ${e.message}`);
    throw e;
  }
}

/**
 * Names that end up in a shell command must not carry what a shell would act on: ssh (9.6 and
 * later) refuses such host and user names on its command line for the same reason.
 */
function checkTokenValues(command: string, ctx: TokenContext): void {
  const used = new Set([...command.matchAll(/%(.)/g)].map((m) => m[1]));
  const names: [string, string, RegExp][] = [
    ['h', ctx.host, UNSAFE_HOST],
    ['n', ctx.originalHost, UNSAFE_HOST],
    ['k', ctx.hostKeyAlias ?? ctx.originalHost, UNSAFE_HOST],
    ['r', ctx.user, UNSAFE_USER],
  ];
  for (const [token, value, unsafe] of names) {
    if (used.has(token) && unsafe.test(value))
      throw new TokenError(`%${token} would be ${JSON.stringify(value)}, which a shell would interpret: not running it`);
  }
}

export function startProxyCommand(commandLine: string, env: NodeJS.ProcessEnv = process.env): ProxyProcess {
  const shell = env.SHELL || '/bin/sh';
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(shell, ['-c', commandLine], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env,
  });
  let stderr = '';
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal !== null ? `was ended by ${signal}` : `exited with status ${code}`));
    child.once('error', (e) => resolve(`could not be started with ${shell}: ${e.message}`));
  });
  const ended = Promise.race([exited, new Promise((resolve) => child.stdout.once('end', resolve))]);
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-STDERR_KEPT)));
  const sock = Duplex.from({ readable: child.stdout, writable: child.stdin });
  // A write after the command died must not throw out of the event loop; ssh2 sees 'close'.
  sock.on('error', () => undefined);
  return {
    sock,
    endsWithin: (ms) => Promise.race([ended.then(() => true), delay(ms, false)]),
    endMessage: async () => {
      const how = await Promise.race([exited, delay(EXIT_WAIT_MS, 'closed its output')]);
      const said = stderr.trim();
      return `ProxyCommand ${how}${said !== '' ? `: ${said}` : ''} (${commandLine})`;
    },
    close: () => {
      sock.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGHUP');
    },
  };
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}
