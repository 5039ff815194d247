// The Getting Started walkthrough as a user meets it: opened with "GPUDirect RDMA: Get Started", each
// step a button whose aria-checked turns "true" once VS Code counts it done.
import { Locator } from 'playwright-core';
import { Workbench } from './workbench';

export const WALKTHROUGH_TITLE = 'Get Started with GPUDirect RDMA Doctor';

export async function openWalkthrough(workbench: Workbench): Promise<void> {
  await workbench.runCommand('GPUDirect RDMA: Get Started');
  await workbench.tab.locator('.gettingStartedContainer', { hasText: WALKTHROUGH_TITLE }).waitFor();
}

/** A step of the walkthrough by its id in package.json (VS Code prefixes the extension and walkthrough ids). */
export function walkthroughStep(workbench: Workbench, id: string): Locator {
  return workbench.tab.locator(`button.getting-started-step[data-step-id$="${id}"]`).first();
}
