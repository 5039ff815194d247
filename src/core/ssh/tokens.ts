// ssh_config(5) TOKENS (`%h`, `%r`, …) and `~` expansion, for paths such as IdentityFile.

export interface TokenContext {
  readonly home: string;
  readonly localUser: string;
  readonly localHost: string;
  /** The target host name (after HostName). */
  readonly host: string;
  readonly originalHost: string;
  readonly user: string;
  readonly port: number;
  readonly uid?: number;
}

export function expandTokens(text: string, ctx: TokenContext): string {
  const values: Record<string, string> = {
    '%': '%',
    d: ctx.home,
    h: ctx.host,
    n: ctx.originalHost,
    r: ctx.user,
    p: String(ctx.port),
    u: ctx.localUser,
    l: ctx.localHost.split('.')[0],
    L: ctx.localHost,
    i: ctx.uid === undefined ? '' : String(ctx.uid),
  };
  return text.replace(/%(.)/g, (whole, t: string) => values[t] ?? whole);
}

/** `~` and `~/…` become the home folder; `~user` is left alone (rare, and needs a passwd lookup). */
export function expandTilde(path: string, home: string): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
}

export function expandPath(path: string, ctx: TokenContext): string {
  return expandTilde(expandTokens(path, ctx), ctx.home);
}
