// Where a remembered sudo password is kept in VS Code's SecretStorage, and how it is forgotten. A password
// belongs to one machine as reached one way: the key is the whole resolved route (user, the HostName and Port
// ssh_config resolves the host to, the ProxyJump chain or the ProxyCommand in between), so the same alias
// pointed elsewhere, the same name behind another login node or another proxy command never gets it. Which
// keys were stored for which host of the Hosts view is kept in an index (SecretStorage cannot list its keys),
// so removing a host forgets its passwords, and Forget Remembered Passwords forgets them all. No VS Code
// import: the store is passed in.
import { createHash } from 'node:crypto';
import type { SshTarget } from '../../core/ssh/sshConfig';

export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** The whole route a sudo password is remembered for. */
export interface SudoRoute {
  /** The Hosts view's id of the host (its passwords are forgotten with it). */
  readonly hostId: string;
  readonly user: string;
  /** As ssh_config resolves the host (HostName, Port). */
  readonly hostname: string;
  readonly port: number;
  readonly proxyJump: string | null;
  /** As configured (tokens unexpanded: with hostname and port they make the command). */
  readonly proxyCommand: string | null;
}

export function sudoRoute(hostId: string, target: SshTarget): SudoRoute {
  const { user, hostname, port, proxyJump, proxyCommand } = target;
  return { hostId, user, hostname, port, proxyJump, proxyCommand };
}

/**
 * `gdrDoctor.sudo:<user>@<hostname>:<port>`, with ` via <ProxyJump chain>` or ` through <hash of the ProxyCommand>`
 * (a command may be long and hold anything: only its hash is part of the key).
 */
export function sudoSecretKey(route: Omit<SudoRoute, 'hostId'>): string {
  const via = route.proxyJump !== null ? ` via ${route.proxyJump}` : '';
  const through =
    route.proxyCommand !== null ? ` through ${createHash('sha256').update(route.proxyCommand).digest('hex').slice(0, 16)}` : '';
  return `gdrDoctor.sudo:${route.user}@${route.hostname}:${route.port}${via}${through}`;
}

/** Host id → the secret keys stored for it. */
const INDEX_KEY = 'gdrDoctor.sudo.index';
type Index = Record<string, string[]>;

// One change of the index at a time (a group fix remembers passwords for many hosts at once).
let indexTurn: Promise<unknown> = Promise.resolve();

async function changeIndex<T>(secrets: SecretStore, change: (index: Index) => T): Promise<T> {
  const turn = indexTurn.then(async () => {
    const index = readIndex(await secrets.get(INDEX_KEY));
    const result = change(index);
    if (Object.keys(index).length === 0) await secrets.delete(INDEX_KEY);
    else await secrets.store(INDEX_KEY, JSON.stringify(index));
    return result;
  });
  indexTurn = turn.catch(() => undefined);
  return turn;
}

function readIndex(text: string | undefined): Index {
  try {
    const parsed: unknown = JSON.parse(text ?? '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const entries = Object.entries(parsed).map(([id, keys]) => [id, Array.isArray(keys) ? keys.filter((k) => typeof k === 'string') : []]);
    return Object.fromEntries(entries) as Index;
  } catch {
    return {};
  }
}

/** Keeps `password` for the route, and the key under its host. */
export async function rememberSudoPassword(secrets: SecretStore, route: SudoRoute, password: string): Promise<void> {
  const key = sudoSecretKey(route);
  await secrets.store(key, password);
  await changeIndex(secrets, (index) => {
    index[route.hostId] = [...new Set([...(index[route.hostId] ?? []), key])];
  });
}

/** Forgets every password remembered for these hosts; how many. */
export async function forgetHostPasswords(secrets: SecretStore, hostIds: readonly string[]): Promise<number> {
  const keys = await changeIndex(secrets, (index) => {
    const found = hostIds.flatMap((id) => index[id] ?? []);
    for (const id of hostIds) delete index[id];
    return found;
  });
  return deleteAll(secrets, keys);
}

/** Forgets every remembered sudo password; how many. */
export async function forgetAllSudoPasswords(secrets: SecretStore): Promise<number> {
  const keys = await changeIndex(secrets, (index) => {
    const found = Object.values(index).flat();
    for (const id of Object.keys(index)) delete index[id];
    return found;
  });
  return deleteAll(secrets, keys);
}

async function deleteAll(secrets: SecretStore, keys: readonly string[]): Promise<number> {
  const unique = [...new Set(keys)];
  for (const key of unique) await secrets.delete(key);
  return unique.length;
}
