// Opens an authenticated SSH connection to a resolved target, through ProxyJump hops or a
// ProxyCommand when configured. Each hop is resolved and its host key verified as a host of its own.
import * as os from 'node:os';
import { Duplex } from 'node:stream';
import { Client, ConnectConfig, ServerHostKeyAlgorithm } from 'ssh2';
import { authHandler } from './auth';
import { classifyConnectError, ConnectError } from './errors';
import { hostKeyLookupName, readKnownHosts, verifyHostKey } from './hostKeyPolicy';
import { orderHostKeyAlgorithms } from './knownHosts';
import { SshPrompts } from './prompts';
import { ProxyProcess, proxyCommandLine, startProxyCommand } from './proxyCommand';
import { SshTarget } from './sshConfig';
import { expandPath, TokenContext, TokenError } from './tokens';

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
  /**
   * The host key differed from known_hosts and StrictHostKeyChecking=no let the connection go on
   * (with ssh's warning): as ssh does, no password went to this server, and none may go over this
   * connection later either, a sudo password included.
   */
  readonly hostKeyChanged: boolean;
  /** Closes the connection, every jump hop under it and a ProxyCommand. */
  close(): void;
}

interface Opened {
  readonly client: Client;
  readonly hostKeyChanged: boolean;
}

export async function connect(target: SshTarget, options: ConnectOptions): Promise<SshConnection> {
  const chain = [...(await hopsTo(target, options, 0)), target];
  const opened: Client[] = [];
  let proxy: ProxyProcess | undefined;
  const closeAll = () => {
    [...opened].reverse().forEach((c) => c.end());
    proxy?.close();
  };
  try {
    // Only the first host's own ProxyCommand applies: the others are reached through it, as
    // `ssh -J` reaches them (a ProxyJump and a ProxyCommand never both come from ssh_config).
    if (chain[0].proxyCommand !== null) proxy = startProxyCommand(proxyCommandLine(chain[0], tokensFor(chain[0])));
    let sock: Duplex | undefined = proxy?.sock;
    let last: Opened | undefined;
    for (let i = 0; i < chain.length; i++) {
      last = await connectOne(chain[i], options, sock, i === 0 ? proxy : undefined);
      opened.push(last.client);
      if (i + 1 < chain.length) sock = await forward(last.client, chain[i], chain[i + 1]);
    }
    const { client, hostKeyChanged } = last as Opened;
    return { target, client, hostKeyChanged, close: closeAll };
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
  if (depth >= MAX_JUMP_DEPTH)
    throw new ConnectError(
      target.host,
      'proxy',
      `ProxyJump goes more than ${MAX_JUMP_DEPTH} hops deep from ${hops[0].host}: a loop in the ssh_config?`,
    );
  return [...(await hopsTo(hops[0], options, depth + 1)), ...hops];
}

function splitJumps(proxyJump: string | null): string[] {
  return proxyJump === null
    ? []
    : proxyJump
        .split(',')
        .map((h) => h.trim())
        .filter((h) => h !== '');
}

/** Opens a direct-tcpip channel through a jump host to the next host of the chain. */
function forward(via: Client, hop: SshTarget, next: SshTarget): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    via.forwardOut('127.0.0.1', 0, next.hostname, next.port, (err, stream) => {
      if (err)
        reject(new ConnectError(next.host, 'proxy', `jump host ${hop.host} could not reach ${next.hostname}:${next.port}: ${err.message}`));
      else resolve(stream);
    });
  });
}

/** Generous bound on the whole login, prompts included; ConnectTimeout covers only reaching the server. */
const LOGIN_GUARD_MS = 10 * 60_000;

/** What the host key check decided, for the authentication that follows it. */
interface KeyState {
  error: ConnectError | null;
  changed: boolean;
}

async function connectOne(
  target: SshTarget,
  options: ConnectOptions,
  sock: Duplex | undefined,
  proxy: ProxyProcess | undefined,
): Promise<Opened> {
  const identityFiles = expandIdentityFiles(target);
  return new Promise((resolve, reject) => {
    const client = new Client();
    const keys: KeyState = { error: null, changed: false };
    let settled = false;
    const onAbort = () => fail(new ConnectError(target.host, 'timeout', 'stopped while connecting'));
    const settle = () => {
      settled = true;
      clearTimeout(connectTimer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const fail = (e: unknown) => {
      if (settled) return;
      settle();
      void explain(target, e, keys.error, proxy).then((err) => {
        // destroy, not end: a server that never answers would keep a half-closed socket (and the process) alive.
        client.destroy();
        reject(err);
      });
    };
    // ConnectTimeout, as in ssh, bounds reaching the server: it ends once the server has spoken
    // (its host key arrives), so time a user spends answering prompts is not counted.
    const timeoutMs = target.connectTimeout !== null ? target.connectTimeout * 1000 : (options.defaultConnectTimeoutMs ?? 30_000);
    const connectTimer = setTimeout(
      () => fail(new ConnectError(target.host, 'timeout', `no SSH banner/handshake within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    client.once('ready', () => {
      settle();
      resolve({ client, hostKeyChanged: keys.changed });
    });
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // on, not once: ssh2 may report a broken transport twice, and an unheard 'error' would throw.
    client.on('error', fail);
    // ssh2 reports a connection the server drops during login only as 'close'.
    client.once('close', () => fail(new ConnectError(target.host, 'tcp', 'the server closed the connection before login completed')));
    client.connect(clientConfig(target, options, { sock, identityFiles, keys, onHostKey: () => clearTimeout(connectTimer) }));
  });
}

/** A ProxyCommand whose output ends this soon after a broken connection is taken for its cause. */
const PROXY_END_WAIT_MS = 1000;

/** Why a connection failed: its host key, else a ProxyCommand that ended under it, else what ssh2 said. */
async function explain(
  target: SshTarget,
  e: unknown,
  hostKeyError: ConnectError | null,
  proxy: ProxyProcess | undefined,
): Promise<ConnectError> {
  if (hostKeyError) return hostKeyError;
  const err = classifyConnectError(target.host, e);
  // The connection is still up while we wait, so the command cannot have ended because we closed it.
  if (proxy && (err.step === 'tcp' || err.step === 'protocol') && (await proxy.endsWithin(PROXY_END_WAIT_MS))) {
    return new ConnectError(target.host, 'proxy', await proxy.endMessage());
  }
  return err;
}

interface ClientParts {
  readonly sock: Duplex | undefined;
  readonly identityFiles: readonly string[];
  readonly keys: KeyState;
  /** The server has sent its host key (the connect timeout ends here). */
  readonly onHostKey: () => void;
}

function clientConfig(target: SshTarget, options: ConnectOptions, parts: ClientParts): ConnectConfig {
  const { keys } = parts;
  return {
    host: target.hostname,
    port: target.port,
    username: target.user,
    sock: parts.sock,
    readyTimeout: LOGIN_GUARD_MS,
    keepaliveInterval: target.serverAliveInterval * 1000,
    keepaliveCountMax: target.serverAliveCountMax,
    algorithms: { serverHostKey: orderHostKeyAlgorithms(readKnownHosts(target), hostKeyLookupName(target)) as ServerHostKeyAlgorithm[] },
    // The host key is checked here, before ssh2 sends any authentication request.
    hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
      parts.onHostKey();
      verifyHostKey(target, key, options.prompts).then(
        (check) => {
          if (check.unsafe) options.prompts.warn?.(target.host, check.unsafe);
          keys.changed = check.unsafe !== undefined;
          verify(true);
        },
        (e: unknown) => {
          keys.error = e instanceof ConnectError ? e : classifyConnectError(target.host, e);
          verify(false);
        },
      );
    },
    authHandler: authHandler({
      target,
      prompts: options.prompts,
      identityFiles: parts.identityFiles,
      agentSocket: options.agentSocket,
      passwordsDisabled: () => keys.changed,
    }),
  };
}

/** IdentityFile paths as ssh expands them; an unknown token stops the connection, as in ssh. */
function expandIdentityFiles(target: SshTarget): string[] {
  try {
    return target.identityFiles.map((f) => expandPath(f, tokensFor(target)));
  } catch (e) {
    if (e instanceof TokenError) throw new ConnectError(target.host, 'config', `IdentityFile: ${e.message}`);
    throw e;
  }
}

function tokensFor(target: SshTarget): TokenContext {
  const me = os.userInfo();
  return {
    home: os.homedir(),
    localUser: me.username,
    localHost: os.hostname(),
    uid: me.uid,
    host: target.hostname,
    originalHost: target.host,
    user: target.user,
    port: target.port,
    hostKeyAlias: target.hostKeyAlias,
    env: process.env,
  };
}
