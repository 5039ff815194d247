// Authentication in OpenSSH's order: agent, identity files (asking for passphrases), then
// keyboard-interactive, then password. Secrets pass straight to ssh2 and are never logged.
import * as fs from 'node:fs';
import { AuthenticationType, AuthHandlerMiddleware, NextAuthHandler } from 'ssh2';
import { loadIdentityFile } from './identityFile';
import { SshPrompts } from './prompts';
import { SshTarget } from './sshConfig';
import { errorText } from '../errorText';

/** ssh_config's NumberOfPasswordPrompts default. */
const PASSWORD_TRIES = 3;

type Auth = Parameters<NextAuthHandler>[0];
type Attempt = () => Promise<Auth | null>;
interface QueuedAttempt {
  readonly method: AuthenticationType;
  readonly run: Attempt;
}

export interface AuthContext {
  readonly target: SshTarget;
  readonly prompts: SshPrompts;
  /** The target's IdentityFiles with `~`, tokens and `${NAME}` expanded. */
  readonly identityFiles: readonly string[];
  /** SSH_AUTH_SOCK from the environment the tool runs in. */
  readonly agentSocket: string | undefined;
  /**
   * True once the host key check let a changed key through (StrictHostKeyChecking=no): as ssh
   * does then, no password or keyboard-interactive answer is sent to that server.
   */
  readonly passwordsDisabled: () => boolean;
}

/** Builds ssh2's authHandler: a queue of attempts, each tried when the server allows its method. */
export function authHandler(ctx: AuthContext): AuthHandlerMiddleware {
  const queue = attempts(ctx);
  return (methodsLeft, _partial, next) => {
    void nextAllowed(queue, methodsLeft, ctx).then((auth) => next(auth ?? (false as never)));
  };
}

async function nextAllowed(queue: QueuedAttempt[], methodsLeft: AuthenticationType[] | null, ctx: AuthContext): Promise<Auth | null> {
  while (queue.length > 0) {
    const item = queue.shift() as QueuedAttempt;
    if (methodsLeft !== null && !methodsLeft.includes(item.method)) continue;
    // An attempt that throws (a prompt that failed, say) is one method less, never a login that
    // hangs or a crash: ssh2 waits for next() forever.
    const auth = await item.run().catch((e: unknown) => {
      warn(ctx, [`${item.method} authentication skipped: ${errorText(e)}`]);
      return null;
    });
    if (auth) return auth;
  }
  return null;
}

function attempts(ctx: AuthContext): QueuedAttempt[] {
  const user = ctx.target.user;
  const list: QueuedAttempt[] = [];
  const agent = agentPath(ctx);
  if (agent) list.push({ method: 'publickey', run: async () => ({ type: 'agent', username: user, agent }) });
  for (const file of ctx.identityFiles) {
    // A missing file is skipped quietly, as ssh does with the default names it tries.
    if (fs.existsSync(file)) list.push({ method: 'publickey', run: () => identityFile(file, ctx) });
  }
  list.push({ method: 'keyboard-interactive', run: async () => (ctx.passwordsDisabled() ? null : keyboardInteractive(ctx)) });
  for (let i = 0; i < PASSWORD_TRIES; i++) {
    list.push({ method: 'password', run: () => (ctx.passwordsDisabled() ? Promise.resolve(null) : password(ctx)) });
  }
  return list;
}

function agentPath(ctx: AuthContext): string | null {
  const configured = ctx.target.identityAgent;
  if (configured === 'none') return null;
  // IdentitiesOnly limits agent keys to the configured files; without agent filtering we skip it.
  if (ctx.target.identitiesOnly && configured === null) return null;
  if (configured === null || configured === 'SSH_AUTH_SOCK') return ctx.agentSocket ?? null;
  return configured.startsWith('$') ? (process.env[configured.slice(1)] ?? null) : configured;
}

async function identityFile(file: string, ctx: AuthContext): Promise<Auth | null> {
  const loaded = await loadIdentityFile(file, (f) => ctx.prompts.passphrase(f));
  if (loaded === null) return null;
  if ('skipped' in loaded) {
    warn(ctx, loaded.skipped);
    return null;
  }
  return { type: 'publickey', username: ctx.target.user, key: loaded.key };
}

function warn(ctx: AuthContext, lines: readonly string[]): void {
  ctx.prompts.warn?.(ctx.target.host, lines);
}

function keyboardInteractive(ctx: AuthContext): Auth {
  return {
    type: 'keyboard-interactive',
    username: ctx.target.user,
    prompt: (name, instructions, _lang, prompts, finish) => {
      void ctx.prompts
        .keyboardInteractive(
          ctx.target.host,
          name,
          instructions,
          prompts.map((p) => ({ prompt: p.prompt, echo: p.echo === true })),
        )
        // Declining still has to answer every prompt, or the server waits forever; empty
        // answers fail this method and authentication moves on to the next one.
        .then(
          (answers) => answers,
          () => null,
        )
        .then((answers) => finish(answers ?? prompts.map(() => '')));
    },
  };
}

async function password(ctx: AuthContext): Promise<Auth | null> {
  const secret = await ctx.prompts.password(ctx.target.user, ctx.target.host);
  return secret === null ? null : { type: 'password', username: ctx.target.user, password: secret };
}
