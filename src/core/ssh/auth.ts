// Authentication in OpenSSH's order: agent, identity files (asking for passphrases), then
// keyboard-interactive, then password. Secrets pass straight to ssh2 and are never logged.
import * as fs from 'node:fs';
import { AuthenticationType, AuthHandlerMiddleware, NextAuthHandler, utils } from 'ssh2';
import { SshPrompts } from './prompts';
import { SshTarget } from './sshConfig';
import { expandPath, TokenContext } from './tokens';

/** ssh_config's NumberOfPasswordPrompts default. */
const PASSWORD_TRIES = 3;

type Attempt = () => Promise<Parameters<NextAuthHandler>[0] | null>;

export interface AuthContext {
  readonly target: SshTarget;
  readonly prompts: SshPrompts;
  readonly tokens: TokenContext;
  /** SSH_AUTH_SOCK from the environment the tool runs in. */
  readonly agentSocket: string | undefined;
}

/** Builds ssh2's authHandler: a queue of attempts, each tried when the server allows its method. */
export function authHandler(ctx: AuthContext): AuthHandlerMiddleware {
  const queue = attempts(ctx);
  return (methodsLeft, _partial, next) => {
    void nextAllowed(queue, methodsLeft).then((auth) => next(auth ?? (false as never)));
  };
}

async function nextAllowed(queue: { method: AuthenticationType; run: Attempt }[], methodsLeft: AuthenticationType[] | null): Promise<Parameters<NextAuthHandler>[0] | null> {
  while (queue.length > 0) {
    const item = queue.shift() as { method: AuthenticationType; run: Attempt };
    if (methodsLeft !== null && !methodsLeft.includes(item.method)) continue;
    const auth = await item.run();
    if (auth) return auth;
  }
  return null;
}

function attempts(ctx: AuthContext): { method: AuthenticationType; run: Attempt }[] {
  const user = ctx.target.user;
  const list: { method: AuthenticationType; run: Attempt }[] = [];
  const agent = agentPath(ctx);
  if (agent) list.push({ method: 'publickey', run: async () => ({ type: 'agent', username: user, agent }) });
  for (const file of ctx.target.identityFiles.map((f) => expandPath(f, ctx.tokens))) {
    if (fs.existsSync(file)) list.push({ method: 'publickey', run: () => identityFile(file, user, ctx.prompts) });
  }
  list.push({ method: 'keyboard-interactive', run: async () => keyboardInteractive(ctx) });
  for (let i = 0; i < PASSWORD_TRIES; i++) {
    list.push({ method: 'password', run: () => password(ctx) });
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

async function identityFile(file: string, username: string, prompts: SshPrompts): Promise<Parameters<NextAuthHandler>[0] | null> {
  const data = fs.readFileSync(file);
  let parsed = utils.parseKey(data);
  for (let tries = 0; parsed instanceof Error && /passphrase/i.test(parsed.message) && tries < PASSWORD_TRIES; tries++) {
    const passphrase = await prompts.passphrase(file);
    if (passphrase === null) return null;
    parsed = utils.parseKey(data, passphrase);
  }
  if (parsed instanceof Error) return null;
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  return { type: 'publickey', username, key };
}

function keyboardInteractive(ctx: AuthContext): Parameters<NextAuthHandler>[0] {
  return {
    type: 'keyboard-interactive',
    username: ctx.target.user,
    prompt: (name, instructions, _lang, prompts, finish) => {
      void ctx.prompts
        .keyboardInteractive(ctx.target.host, name, instructions, prompts.map((p) => ({ prompt: p.prompt, echo: p.echo === true })))
        // Declining still has to answer every prompt, or the server waits forever; empty
        // answers fail this method and authentication moves on to the next one.
        .then((answers) => finish(answers ?? prompts.map(() => '')));
    },
  };
}

async function password(ctx: AuthContext): Promise<Parameters<NextAuthHandler>[0] | null> {
  const secret = await ctx.prompts.password(ctx.target.user, ctx.target.host);
  return secret === null ? null : { type: 'password', username: ctx.target.user, password: secret };
}
