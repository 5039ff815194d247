// sudo's password for a fix: a remembered one first (VS Code's SecretStorage, keyed by the whole
// route: sudoSecrets.ts), else asked; a remembered one that sudo rejects is forgotten
// and asked for once. A typed one is remembered only when the user asked for it and sudo took it.
// In a group fix every password passes the group's gate first (sudoGate.ts). The password goes to
// the core's runPlan and to the store, never to a log or a setting. No VS Code import: the store and the
// question are passed in, so this is unit-tested with the real core and a fake host.
import { FixPlan, FixResult, FixSession, runPlan } from '../../core/fixes';
import { SudoPasswordGate, SudoVerdict } from './sudoGate';
import { rememberSudoPassword, SecretStore, sudoSecretKey, SudoRoute } from './sudoSecrets';

export type { SecretStore, SudoRoute } from './sudoSecrets';
export { sudoSecretKey } from './sudoSecrets';

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
  /** A group fix's gate (sudoGate.ts): a password is tried on one host before the others get it. */
  readonly gate?: SudoPasswordGate;
}

/** sudo said the password was wrong (the core's own classification, so no second regex here). */
export function sudoRejectedPassword(result: FixResult): boolean {
  return result.plan.privilege === 'sudo-password' && result.status === 'failed' && result.passwordRejected === true;
}

/**
 * What a run says about the password it sent: refused; accepted only when sudo demonstrably ran a command with it
 * (the core's passwordAccepted: it asked, then a step exited 0); unknown otherwise (nothing ran, a step timed out
 * or was cut off while sudo may still have been checking it, sudo failed for another reason).
 */
export function sudoVerdict(result: FixResult): SudoVerdict {
  if (sudoRejectedPassword(result)) return 'refused';
  return result.passwordAccepted === true ? 'accepted' : 'unknown';
}

/** A route from the session alone (port 22, nothing in between): for callers without a connection's target. */
function sessionRoute(session: FixSession): SudoRoute {
  return { hostId: session.host, user: session.user, hostname: session.host, port: 22, proxyJump: null, proxyCommand: null };
}

/**
 * Runs a shown and agreed plan, answering sudo's password as described above. `route`: the connection's
 * whole resolved route (sudoRoute), the remembered password's key.
 */
export async function runWithSudo(
  plan: FixPlan,
  session: FixSession,
  sudoMarker: string,
  deps: SudoDeps,
  route: SudoRoute = sessionRoute(session),
): Promise<FixResult> {
  if (plan.privilege !== 'sudo-password') return runPlan(plan, session, { sudoMarker, sudoPassword: async () => null });
  const key = sudoSecretKey(route);
  const remembered = await deps.secrets.get(key);
  let retry = false;
  if (remembered !== undefined && remembered !== '') {
    const { result, heldBack } = await runThroughGate(plan, session, sudoMarker, deps, async () => remembered);
    if (!heldBack && !sudoRejectedPassword(result)) return result;
    if (heldBack) {
      deps.note(
        `${session.host}: the remembered sudo password of ${session.user} was not sent: sudo refused it on ${deps.gate?.refusedOn() ?? 'another host'}`,
      );
    } else {
      // sudo ran nothing: the plan can run again unchanged with a password typed now.
      await deps.secrets.delete(key);
      deps.note(`${session.host}: sudo rejected the remembered password of ${session.user}; it was forgotten`);
    }
    retry = true;
  }
  let asked: AskedPassword | null = null;
  const { result } = await runThroughGate(plan, session, sudoMarker, deps, async () => {
    asked = await deps.ask(retry);
    return asked?.password ?? null;
  });
  const given = asked as AskedPassword | null;
  if (given?.remember && sudoVerdict(result) === 'accepted') {
    await rememberSudoPassword(deps.secrets, route, given.password);
    deps.note(`${session.host}: the sudo password of ${session.user} is remembered in VS Code's secret storage`);
  }
  return result;
}

/**
 * runPlan with the password `password()` gives, let through the group's gate (if any), which then
 * hears what sudo made of it, also when the run throws. `heldBack`: the gate did not let it through.
 */
async function runThroughGate(
  plan: FixPlan,
  session: FixSession,
  sudoMarker: string,
  deps: SudoDeps,
  password: () => Promise<string | null>,
): Promise<{ result: FixResult; heldBack: boolean }> {
  const sent: { password?: string; heldBack: boolean } = { heldBack: false };
  let result: FixResult | undefined;
  try {
    result = await runPlan(plan, session, {
      sudoMarker,
      sudoPassword: async () => {
        const p = await password();
        if (p === null || p === '') return null;
        if (deps.gate && !(await deps.gate.mayTry(p))) {
          sent.heldBack = true;
          return null;
        }
        sent.password = p;
        return p;
      },
    });
    return { result, heldBack: sent.heldBack };
  } finally {
    if (sent.password !== undefined) deps.gate?.settle(sent.password, result ? sudoVerdict(result) : 'unknown', session.host);
  }
}
