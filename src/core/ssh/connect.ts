// Opens an authenticated SSH connection to a resolved target, through ProxyJump hops when
// configured. Each hop is resolved and its host key verified as a host of its own.
import * as os from 'node:os';
import { Duplex } from 'node:stream';
import { Client } from 'ssh2';
import { authHandler } from './auth';
import { classifyConnectError, ConnectError } from './errors';
import { verifyHostKey } from './hostKeyPolicy';
import { SshPrompts } from './prompts';
import { SshTarget } from './sshConfig';
import { TokenContext } from './tokens';

export interface ConnectOptions {
  readonly prompts: SshPrompts;
  /** Resolves a ProxyJump hop (`user@host:port`) through the same ssh_config as the target. */
  readonly resolveHop: (hop: string) => Promise<SshTarget>;
  readonly agentSocket?: string;
  /** Used when the config sets no ConnectTimeout. */
  readonly defaultConnectTimeoutMs?: number;
  /** Aborting drops the connection being opened (a fleet's deadline or cancel) and rejects. */
  readonly signal?: AbortSignal;
}

export interface SshConnection {
  readonly target: SshTarget;
  readonly client: Client;
  /** Closes the connection and every jump hop under it. */
  close(): void;
}

export async function connect(target: SshTarget, options: ConnectOptions): Promise<SshConnection> {
  const chain = [...(await hopsTo(target, options, 0)), target];
  const opened: Client[] = [];
  const closeAll = () => [...opened].reverse().forEach((c) => c.end());
  try {
    let sock: Duplex | undefined;
    for (let i = 0; i < chain.length; i++) {
      const client = await connectOne(chain[i], options, sock);
      opened.push(client);
      if (i + 1 < chain.length) sock = await forward(client, chain[i], chain[i + 1]);
    }
    return { target, client: opened[opened.length - 1], close: closeAll };
  } catch (e) {
    closeAll();
    throw e;
  }
}

/** ProxyJump chains deeper than this are taken for a loop in the configuration. */
const MAX_JUMP_DEPTH = 8;

/**
 * The hosts to pass through before `target`, as OpenSSH goes: `ProxyJump a,b,c` runs
 * `ssh -J a,b -W … c`, so the command-line -J overrides b's and c's own ProxyJump, but `a` is
 * reached by a plain `ssh a` and its own ProxyJump (in the same ssh_config) applies in turn.
 */
async function hopsTo(target: SshTarget, options: ConnectOptions, depth: number): Promise<SshTarget[]> {
  const hops = await Promise.all(splitJumps(target.proxyJump).map((h) => options.resolveHop(h)));
  if (hops.length === 0 || hops[0].proxyJump === null) return hops;
  if (depth >= MAX_JUMP_DEPTH) throw new ConnectError(target.host, 'proxy', `ProxyJump goes more than ${MAX_JUMP_DEPTH} hops deep from ${hops[0].host}: a loop in the ssh_config?`);
  return [...(await hopsTo(hops[0], options, depth + 1)), ...hops];
}

function splitJumps(proxyJump: string | null): string[] {
  return proxyJump === null ? [] : proxyJump.split(',').map((h) => h.trim()).filter((h) => h !== '');
}

/** Opens a direct-tcpip channel through a jump host to the next host of the chain. */
function forward(via: Client, hop: SshTarget, next: SshTarget): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    via.forwardOut('127.0.0.1', 0, next.hostname, next.port, (err, stream) => {
      if (err) reject(new ConnectError(next.host, 'proxy', `jump host ${hop.host} could not reach ${next.hostname}:${next.port}: ${err.message}`));
      else resolve(stream);
    });
  });
}

/** Generous bound on the whole login, prompts included; ConnectTimeout covers only reaching the server. */
const LOGIN_GUARD_MS = 10 * 60_000;

function connectOne(target: SshTarget, options: ConnectOptions, sock: Duplex | undefined): Promise<Client> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let hostKeyError: ConnectError | null = null;
    let settled = false;
    const onAbort = () => fail(new ConnectError(target.host, 'timeout', 'stopped while connecting'));
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // destroy, not end: a server that never answers would keep a half-closed socket (and the process) alive.
      client.destroy();
      reject(hostKeyError ?? classifyConnectError(target.host, e));
    };
    // ConnectTimeout, as in ssh, bounds reaching the server: it ends once the server has spoken
    // (its host key arrives), so time a user spends answering prompts is not counted.
    const timeoutMs = target.connectTimeout !== null ? target.connectTimeout * 1000 : (options.defaultConnectTimeoutMs ?? 30_000);
    const connectTimer = setTimeout(() => fail(new ConnectError(target.host, 'timeout', `no SSH banner/handshake within ${timeoutMs / 1000} s`)), timeoutMs);
    client.once('ready', () => {
      settled = true;
      clearTimeout(connectTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(client);
    });
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    client.once('error', fail);
    // ssh2 reports a connection the server drops during login only as 'close'.
    client.once('close', () => fail(new ConnectError(target.host, 'tcp', 'the server closed the connection before login completed')));
    client.connect({
      host: target.hostname,
      port: target.port,
      username: target.user,
      sock,
      readyTimeout: LOGIN_GUARD_MS,
      keepaliveInterval: target.serverAliveInterval * 1000,
      keepaliveCountMax: target.serverAliveCountMax,
      // The host key is checked here, before ssh2 sends any authentication request.
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        clearTimeout(connectTimer);
        verifyHostKey(target, key, options.prompts).then(
          () => verify(true),
          (e: unknown) => {
            hostKeyError = e instanceof ConnectError ? e : classifyConnectError(target.host, e);
            verify(false);
          },
        );
      },
      authHandler: authHandler({ target, prompts: options.prompts, tokens: tokensFor(target), agentSocket: options.agentSocket }),
    });
  });
}

function tokensFor(target: SshTarget): TokenContext {
  return {
    home: os.homedir(),
    localUser: os.userInfo().username,
    localHost: os.hostname(),
    host: target.hostname,
    originalHost: target.host,
    user: target.user,
    port: target.port,
  };
}
