// ssh_config(5) TOKENS (`%h`, `%r`, …), ENVIRONMENT VARIABLES (`${HOME}`) and `~`, expanded as
// OpenSSH's percent_dollar_expand does: a token a keyword does not accept, or an unset variable,
// is an error (ssh stops with "unknown key"), never passed on as it was written.
import { createHash } from 'node:crypto';

export interface TokenContext {
  readonly home: string;
  readonly localUser: string;
  /** gethostname(): `%l` is all of it, `%L` the part before the first dot. */
  readonly localHost: string;
  /** The target host name (after HostName), lower-cased as ssh does. */
  readonly host: string;
  /** The host as given on the command line (`%n`). */
  readonly originalHost: string;
  readonly user: string;
  readonly port: number;
  readonly uid?: number;
  /** HostKeyAlias, for `%k` (else the original host). */
  readonly hostKeyAlias?: string | null;
  /** For `${NAME}`; only the keywords that take environment variables read it. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Tokens of CertificateFile, IdentityAgent, IdentityFile, UserKnownHostsFile and the like. */
export const FILE_TOKENS = '%CdhikLlnpru';
/** HostName takes only these. */
export const HOSTNAME_TOKENS = '%h';
/** ProxyCommand's (`%k` as ssh's expand_proxy_command has it, beyond the manual's list). */
export const PROXY_COMMAND_TOKENS = '%hknpr';

export class TokenError extends Error {}

export interface ExpandOptions {
  /** The token letters the keyword accepts. */
  readonly tokens: string;
  /** Whether `${NAME}` is expanded (UserKnownHostsFile, IdentityFile, IdentityAgent). */
  readonly envVars?: boolean;
}

export function expandTokens(text: string, ctx: TokenContext, options: ExpandOptions = { tokens: FILE_TOKENS }): string {
  const values = tokenValues(ctx);
  return text.replace(/\$\{([^}]*)\}|%(.?)/g, (whole, name: string | undefined, t: string | undefined) => {
    if (name !== undefined) {
      if (!options.envVars) return whole;
      const value = ctx.env?.[name];
      if (value === undefined) throw new TokenError(`environment variable \${${name}} has no value`);
      return value;
    }
    if (t === '' || t === undefined) throw new TokenError(`a lone "%" at the end of ${JSON.stringify(text)}`);
    if (!options.tokens.includes(t)) throw new TokenError(`unknown token %${t} in ${JSON.stringify(text)}`);
    return values[t];
  });
}

function tokenValues(ctx: TokenContext): Record<string, string> {
  const port = String(ctx.port);
  return {
    '%': '%',
    C: connectionHash(ctx.localHost, ctx.host, port, ctx.user),
    d: ctx.home,
    h: ctx.host,
    i: ctx.uid === undefined ? '' : String(ctx.uid),
    k: ctx.hostKeyAlias ?? ctx.originalHost,
    L: ctx.localHost.split('.')[0],
    l: ctx.localHost,
    n: ctx.originalHost,
    p: port,
    r: ctx.user,
    u: ctx.localUser,
  };
}

/** `%C`: SHA-1 of %l%h%p%r in hex, as ssh_connection_hash() computes it. */
function connectionHash(localHost: string, host: string, port: string, user: string): string {
  return createHash('sha1')
    .update(localHost + host + port + user)
    .digest('hex');
}

/** `~` and `~/…` become the home folder; `~user` is left alone (rare, and needs a passwd lookup). */
export function expandTilde(path: string, home: string): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
}

/** A path keyword as ssh expands it: `~` first, then tokens and `${NAME}`. */
export function expandPath(path: string, ctx: TokenContext): string {
  return expandTokens(expandTilde(path, ctx.home), ctx, { tokens: FILE_TOKENS, envVars: true });
}
