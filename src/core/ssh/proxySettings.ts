// ProxyCommand and ProxyJump in ssh_config, as OpenSSH's readconf.c takes them: each keeps its
// first value, and they exclude each other: a ProxyJump sets ProxyCommand to "none" and is
// itself ignored once a ProxyCommand (even "none") was given. `ProxyJump none` only stops later
// ProxyJumps. ProxyJump is given back as `ssh -G` prints it, so both resolvers agree.
import { DestinationError, parseDestination } from './destination';

export interface ProxyState {
  command: string | null;
  jump: string | null;
}

export function setProxyCommand(state: ProxyState, command: string): void {
  if (state.command === null && command !== '') state.command = command;
}

export function setProxyJump(state: ProxyState, jump: string | undefined): void {
  if (jump === undefined) return;
  if (jump.toLowerCase() === 'none') {
    state.jump ??= 'none';
    return;
  }
  if (state.command !== null || state.jump !== null) return;
  state.jump = jump;
  state.command = 'none';
}

export function finishProxy(state: ProxyState): { proxyJump: string | null; proxyCommand: string | null } {
  const command = state.command === null || state.command.toLowerCase() === 'none' ? null : state.command;
  const jump = state.jump === null || state.jump === 'none' ? null : canonicalJump(state.jump);
  return { proxyJump: jump, proxyCommand: jump === null ? command : null };
}

/**
 * `a,b,ssh://u@c:2200` → `a,b,u@c:2200`; a numeric last hop in brackets (`[10.0.0.1]`), as ssh's
 * dump_client_config() prints it. Only the last hop is rewritten there; the rest stays as written.
 */
function canonicalJump(jump: string): string {
  const comma = jump.lastIndexOf(',');
  const extra = comma >= 0 ? jump.slice(0, comma + 1) : '';
  try {
    const last = parseDestination(jump.slice(comma + 1));
    const numeric = last.host.includes(':') || /^[0-9.]+$/.test(last.host);
    const host = numeric ? `[${last.host}]` : last.host;
    return `${extra}${last.user !== null ? `${last.user}@` : ''}${host}${last.port !== null ? `:${last.port}` : ''}`;
  } catch (e) {
    if (e instanceof DestinationError) return jump; // connect() says what is wrong with it
    throw e;
  }
}
