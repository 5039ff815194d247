// sudo's password for a fix: a remembered one first (VS Code's SecretStorage, keyed by user and
// host), else asked; a remembered one that sudo rejects is forgotten and asked for once. A typed one
// is remembered only when the user asked for it and sudo took it. The password goes to the core's
// runPlan and to the store, never to a log or a setting. No VS Code import: the store and the
// question are passed in, so this is unit-tested with the real core and a fake host.
import { FixPlan, FixResult, FixSession, runPlan } from '../../core/fixes';

export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

export interface AskedPassword {
  readonly password: string;
  readonly remember: boolean;
}

export interface SudoDeps {
  readonly secrets: SecretStore;
  /** Asks the user; null when cancelled. `retry`: a remembered password was just rejected. */
  readonly ask: (retry: boolean) => Promise<AskedPassword | null>;
  /** A line for the log; never given the password. */
  readonly note: (message: string) => void;
}

/** The key under which a host's sudo password is kept: `gdrDoctor.sudo:<user>@<destination>`. */
export function sudoSecretKey(user: string, destination: string): string {
  return `gdrDoctor.sudo:${user}@${destination}`;
}

/** sudo said the password was wrong (the core's own classification, so no second regex here). */
export function sudoRejectedPassword(result: FixResult): boolean {
  return result.plan.privilege === 'sudo-password' && result.status === 'failed' && result.message.startsWith('sudo did not accept the password');
}

/** Runs a shown and agreed plan, answering sudo's password as described above. */
export async function runWithSudo(plan: FixPlan, session: FixSession, sudoMarker: string, deps: SudoDeps): Promise<FixResult> {
  if (plan.privilege !== 'sudo-password') return runPlan(plan, session, { sudoMarker, sudoPassword: async () => null });
  const key = sudoSecretKey(session.user, session.host);
  const remembered = await deps.secrets.get(key);
  let retry = false;
  if (remembered !== undefined && remembered !== '') {
    const result = await runPlan(plan, session, { sudoMarker, sudoPassword: async () => remembered });
    if (!sudoRejectedPassword(result)) return result;
    // sudo ran nothing: the plan can run again unchanged with a password typed now.
    await deps.secrets.delete(key);
    deps.note(`${session.host}: sudo rejected the remembered password of ${session.user}; it was forgotten`);
    retry = true;
  }
  let asked: AskedPassword | null = null;
  const result = await runPlan(plan, session, {
    sudoMarker,
    sudoPassword: async () => {
      asked = await deps.ask(retry);
      return asked?.password ?? null;
    },
  });
  const given = asked as AskedPassword | null;
  if (given?.remember && result.steps.length > 0 && !sudoRejectedPassword(result)) {
    await deps.secrets.store(key, given.password);
    deps.note(`${session.host}: the sudo password of ${session.user} is remembered in VS Code's secret storage`);
  }
  return result;
}
