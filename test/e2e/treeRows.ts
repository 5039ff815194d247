// The Hosts view's rows as a user reaches them: a row by its label, expanding or collapsing it
// (clicking again while VS Code is still busy with the previous click), and its inline actions.
import * as assert from 'assert';
import { Locator } from 'playwright-core';
import { Workbench } from './workbench';

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function hostsTree(workbench: Workbench) {
  const sidebar = () => workbench.tab.locator('.part.sidebar');
  /** The first row labelled exactly `label` (or matching the expression). */
  const row = (label: string | RegExp): Locator => sidebar().locator('.monaco-list-row', {
    has: workbench.tab.locator('.label-name', { hasText: typeof label === 'string' ? new RegExp(`^${escapeRegExp(label)}$`) : label }),
  }).first();

  async function setExpanded(r: Locator, want: boolean): Promise<void> {
    await r.waitFor();
    for (let attempt = 0; attempt < 5; attempt++) {
      if (((await r.getAttribute('aria-expanded')) === 'true') === want) return;
      await r.click();
      await workbench.tab.waitForTimeout(300);
    }
    assert.strictEqual(await r.getAttribute('aria-expanded'), String(want), `row does not ${want ? 'expand' : 'collapse'}`);
  }

  /** Clicks the row's inline action (shown on hover) named `action`. */
  async function inline(r: Locator, action: string): Promise<void> {
    await r.hover();
    await r.locator(`.actions .action-label[aria-label="${action}"]`).click();
  }

  return { sidebar, row, setExpanded, inline };
}
