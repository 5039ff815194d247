// Who to reach: resolves a destination through ssh_config files the way OpenSSH does (first value
// wins, Host/Match blocks, Include), for the keys gdr-doctor uses. sshG.ts asks `ssh -G` instead
// where an OpenSSH client exists; tests hold this resolver to `ssh -G`'s answers.
import * as path from 'node:path';
import { ConfigFs, ConfigLine, includeTargets, readConfigLines } from './configFile';
import { Destination } from './destination';
import { ConnectError } from './errors';
import { matchPatternList } from './hostPatterns';
import { finishProxy, ProxyState, setProxyCommand, setProxyJump } from './proxySettings';
import { expandPath, expandTokens, HOSTNAME_TOKENS, TokenContext, TokenError } from './tokens';

export type StrictHostKeyChecking = 'yes' | 'no' | 'ask' | 'accept-new';

export interface SshTarget {
  /** The name as the user wrote it (the `Host` alias). */
  readonly host: string;
  readonly hostname: string;
  readonly user: string;
  readonly port: number;
  /** As configured, with `~` and `%` tokens still in them (as `ssh -G` prints them). */
  readonly identityFiles: readonly string[];
  readonly identitiesOnly: boolean;
  readonly identityAgent: string | null;
  /** ProxyJump and ProxyCommand exclude each other: whichever ssh_config gives first is set. */
  readonly proxyJump: string | null;
  /** As configured, tokens unexpanded (connect time: proxyCommand.ts). */
  readonly proxyCommand: string | null;
  /** Expanded (`~`, tokens, `${NAME}`); empty for `none`. */
  readonly userKnownHostsFiles: readonly string[];
  /** As configured (ssh expands only `~` here, when it reads them); empty for `none`. */
  readonly globalKnownHostsFiles: readonly string[];
  readonly strictHostKeyChecking: StrictHostKeyChecking;
  readonly hashKnownHosts: boolean;
  /** Lower-cased, as ssh does. */
  readonly hostKeyAlias: string | null;
  /** Seconds; null when unset ("none"). */
  readonly connectTimeout: number | null;
  readonly serverAliveInterval: number;
  readonly serverAliveCountMax: number;
  /** Things the resolver could not evaluate (e.g. `Match exec`), for the user to see. */
  readonly warnings: readonly string[];
}

export interface ResolveEnv {
  readonly fs: ConfigFs;
  readonly home: string;
  readonly localUser: string;
  readonly localHost: string;
  /** `-F FILE`: only this file is read ("none": none). Otherwise ~/.ssh/config then the system file. */
  readonly configFile?: string;
  readonly systemConfigFile?: string;
  readonly uid?: number;
  /** For `${NAME}` in the keywords that take environment variables. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
}

const MULTI_VALUED = new Set(['identityfile']);
const DEFAULT_IDENTITIES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk', 'id_xmss', 'id_dsa'];

interface State {
  readonly values: Map<string, string[]>;
  readonly identityFiles: string[];
  readonly proxy: ProxyState;
  readonly warnings: string[];
}

/** Throws ConnectError (step 'config') where ssh would stop: an unknown token, an unset `${NAME}`. */
export function resolveSshConfig(dest: Destination, env: ResolveEnv): SshTarget {
  const state: State = { values: new Map(), identityFiles: [], proxy: { command: null, jump: null }, warnings: [] };
  // Command-line values come first, so they win over every config file (first value wins).
  if (dest.user !== null) state.values.set('user', [dest.user]);
  if (dest.port !== null) state.values.set('port', [String(dest.port)]);
  try {
    for (const { file, base } of configFiles(env)) {
      const lines = readConfigLines(env.fs, file);
      if (lines) evaluate(lines, base, true, dest.host, env, state, 0);
    }
    return finish(dest.host, env, state);
  } catch (e) {
    if (e instanceof TokenError) throw new ConnectError(dest.host, 'config', `ssh_config: ${e.message}`);
    throw e;
  }
}

function configFiles(env: ResolveEnv): { file: string; base: string }[] {
  const userDir = path.join(env.home, '.ssh');
  if (env.configFile !== undefined) return env.configFile === 'none' ? [] : [{ file: env.configFile, base: userDir }];
  return [
    { file: path.join(userDir, 'config'), base: userDir },
    { file: env.systemConfigFile ?? '/etc/ssh/ssh_config', base: '/etc/ssh' },
  ];
}

function evaluate(
  lines: readonly ConfigLine[],
  base: string,
  startActive: boolean,
  host: string,
  env: ResolveEnv,
  state: State,
  depth: number,
): void {
  let active = startActive;
  for (const l of lines) {
    if (l.keyword === 'host') active = matchPatternList(host, l.args, false);
    else if (l.keyword === 'match') active = matchCriteria(l, host, env, state);
    else if (!active) continue;
    else if (l.keyword === 'include') includeFiles(l, base, host, env, state, depth);
    else setValue(state, l);
  }
}

function includeFiles(l: ConfigLine, base: string, host: string, env: ResolveEnv, state: State, depth: number): void {
  // OpenSSH stops at 16 levels: the same guard keeps an Include loop from running forever.
  if (depth >= 16) {
    state.warnings.push(`${l.file}:${l.line}: Include nested too deeply`);
    return;
  }
  for (const pattern of l.args) {
    for (const file of includeTargets(env.fs, pattern, base, env.home)) {
      const lines = readConfigLines(env.fs, file);
      if (lines) evaluate(lines, base, true, host, env, state, depth + 1);
    }
  }
}

function setValue(state: State, l: ConfigLine): void {
  if (l.keyword === 'proxycommand') setProxyCommand(state.proxy, l.rest);
  else if (l.keyword === 'proxyjump') setProxyJump(state.proxy, l.args[0]);
  else if (MULTI_VALUED.has(l.keyword)) {
    if (l.args[0] !== undefined) state.identityFiles.push(l.args[0]);
  } else if (!state.values.has(l.keyword) && l.args.length > 0) {
    state.values.set(l.keyword, [...l.args]);
  }
}

/** `Match` with the criteria gdr-doctor can evaluate; `exec` and the rest never match (with a warning). */
function matchCriteria(l: ConfigLine, host: string, env: ResolveEnv, state: State): boolean {
  const args = [...l.args];
  let all = true;
  while (args.length > 0) {
    const raw = args.shift() as string;
    const negate = raw.startsWith('!');
    const criterion = (negate ? raw.slice(1) : raw).toLowerCase();
    if (criterion === 'all') continue;
    const value = args.shift() ?? '';
    const result = evaluateCriterion(criterion, value, host, env, state);
    if (result === null) {
      state.warnings.push(`${l.file}:${l.line}: Match ${criterion} is not evaluated by gdr-doctor; treated as not matching`);
      return false;
    }
    if (result === negate) all = false;
  }
  return all;
}

function evaluateCriterion(criterion: string, value: string, host: string, env: ResolveEnv, state: State): boolean | null {
  const patterns = value.split(',');
  switch (criterion) {
    case 'host':
      return matchPatternList(tokenContext(host, env, state).host, patterns, true);
    case 'originalhost':
      return matchPatternList(host, patterns, true);
    case 'user':
      return matchPatternList(state.values.get('user')?.[0] ?? env.localUser, patterns, false);
    case 'localuser':
      return matchPatternList(env.localUser, patterns, false);
    default:
      return null;
  }
}

function tokenContext(host: string, env: ResolveEnv, state: State): TokenContext {
  const lower = host.toLowerCase();
  const base = {
    home: env.home,
    localUser: env.localUser,
    localHost: env.localHost,
    uid: env.uid,
    env: env.environment,
    originalHost: host,
  };
  // ssh lower-cases the final host name, including the parts HostName spelled out.
  const hostname = expandTokens(
    state.values.get('hostname')?.[0] ?? lower,
    { ...base, host: lower, user: '', port: 22 },
    { tokens: HOSTNAME_TOKENS },
  ).toLowerCase();
  return {
    ...base,
    host: hostname,
    user: state.values.get('user')?.[0] ?? env.localUser,
    port: Number(state.values.get('port')?.[0] ?? 22),
    hostKeyAlias: hostKeyAlias(state),
  };
}

function hostKeyAlias(state: State): string | null {
  return state.values.get('hostkeyalias')?.[0].toLowerCase() ?? null;
}

/** UserKnownHostsFile / GlobalKnownHostsFile: `none` (alone, any case) means no file at all. */
function knownHostsFiles(configured: readonly string[] | undefined, defaults: readonly string[]): readonly string[] {
  const files = configured ?? defaults;
  return files.length === 1 && files[0].toLowerCase() === 'none' ? [] : files;
}

function finish(host: string, env: ResolveEnv, state: State): SshTarget {
  const ctx = tokenContext(host, env, state);
  const get = (k: string) => state.values.get(k);
  const one = (k: string) => get(k)?.[0] ?? null;
  const agent = one('identityagent');
  return {
    host,
    hostname: ctx.host,
    user: ctx.user,
    port: ctx.port,
    identityFiles: state.identityFiles.length > 0 ? state.identityFiles : DEFAULT_IDENTITIES.map((f) => `~/.ssh/${f}`),
    identitiesOnly: yes(one('identitiesonly')),
    identityAgent: agent === null || agent === 'SSH_AUTH_SOCK' ? agent : expandPath(agent, ctx),
    ...finishProxy(state.proxy),
    userKnownHostsFiles: knownHostsFiles(get('userknownhostsfile'), ['~/.ssh/known_hosts', '~/.ssh/known_hosts2']).map((f) =>
      expandPath(f, ctx),
    ),
    globalKnownHostsFiles: knownHostsFiles(get('globalknownhostsfile'), ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2']),
    strictHostKeyChecking: strictMode(one('stricthostkeychecking')),
    hashKnownHosts: yes(one('hashknownhosts')),
    hostKeyAlias: ctx.hostKeyAlias ?? null,
    connectTimeout: seconds(one('connecttimeout')),
    serverAliveInterval: seconds(one('serveraliveinterval')) ?? 0,
    serverAliveCountMax: Number(one('serveralivecountmax') ?? 3),
    warnings: state.warnings,
  };
}

function yes(v: string | null): boolean {
  return v !== null && ['yes', 'true'].includes(v.toLowerCase());
}

export function strictMode(v: string | null): StrictHostKeyChecking {
  switch (v?.toLowerCase()) {
    case 'yes':
    case 'true':
      return 'yes';
    case 'no':
    case 'off':
    case 'false':
      return 'no';
    case 'accept-new':
      return 'accept-new';
    default:
      return 'ask';
  }
}

/** ssh_config TIME FORMATS: `30`, `30s`, `5m`, `1h30m`; "none" or unset is null. */
export function seconds(v: string | null): number | null {
  if (v === null || v.toLowerCase() === 'none') return null;
  const units: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  let total = 0;
  const re = /(\d+)([smhdw]?)/gi;
  let consumed = 0;
  for (let m = re.exec(v); m !== null; m = re.exec(v)) {
    total += Number(m[1]) * units[m[2].toLowerCase()];
    consumed += m[0].length;
  }
  return consumed === v.length && consumed > 0 ? total : null;
}
