// Quick fixes on the demo host: the same plan, apply and verify code as on a real host
// (src/core/fixes), over a session whose shell is the demo's (demoShell.ts) and whose probe replays
// the demo in its current state. Every plan is marked simulated and says so.
import { FixId, FixPlan, FixSession, prepareFix } from '..';
import { DEMO_HOST_NAME, DEMO_USER, DemoHost, probeHost } from '../../transport';
import { demoShell } from './demoShell';
import { DEMO_TEXT } from './text';

export function demoFixSession(demo: DemoHost): FixSession {
  const probe = async () => (await probeHost({ kind: 'demo', demo })).report;
  return { host: DEMO_HOST_NAME, user: DEMO_USER, shell: demoShell(demo), probe };
}

/** The plan on the demo host, marked simulated. */
export async function prepareDemoFix(session: FixSession, fixId: FixId, sudoMarker: string): Promise<FixPlan> {
  const plan = await prepareFix(session, fixId, sudoMarker);
  return { ...plan, simulated: true, notes: [...plan.notes, DEMO_TEXT.simulatedNote()] };
}
