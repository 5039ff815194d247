// The Hosts view's rows as a user reaches them: a row by its label, expanding or collapsing it
// (clicking again while VS Code is still busy with the previous click), its inline actions and
// context menu.
import * as assert from 'assert';
import { Locator } from 'playwright-core';
import { Workbench, hoverUntilShown } from './workbench';

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function hostsTree(workbench: Workbench) {
  const sidebar = () => workbench.tab.locator('.part.sidebar');
  /** The first row labelled exactly `label` (or matching the expression). */
  const row = (label: string | RegExp): Locator =>
    sidebar()
      .locator('.monaco-list-row', {
        has: workbench.tab.locator('.label-name', { hasText: typeof label === 'string' ? new RegExp(`^${escapeRegExp(label)}$`) : label }),
      })
      .first();

  /** A finding's row by its id: the row shows a few words, its accessible name ends with the id (treeItems.ts). */
  const findingRow = (id: string): Locator => sidebar().locator(`.monaco-list-row[aria-label$=", ${id}"]`).first();

  async function setExpanded(r: Locator, want: boolean): Promise<void> {
    await r.waitFor();
    for (let attempt = 0; attempt < 5; attempt++) {
      if (((await r.getAttribute('aria-expanded')) === 'true') === want) return;
      // The twistie: a click on a finding's row opens its details instead.
      await r.locator('.monaco-tl-twistie').click();
      await workbench.tab.waitForTimeout(300);
    }
    assert.strictEqual(await r.getAttribute('aria-expanded'), String(want), `row does not ${want ? 'expand' : 'collapse'}`);
  }

  /** Clicks the row's inline action (shown on hover) named `action`. */
  async function inline(r: Locator, action: string): Promise<void> {
    await r.hover();
    await r.locator(`.actions .action-label[aria-label="${action}"]`).click();
  }

  /** Runs the item `action` of the context menu of a row (by label, or found by the caller). */
  async function contextMenu(target: string | Locator, action: string): Promise<void> {
    await (typeof target === 'string' ? row(target) : target).click({ button: 'right' });
    const item = workbench.tab.locator('.context-view .action-item', { hasText: action }).first();
    await item.hover();
    // A menu ignores a click that comes right after it opened (the right-button release).
    await workbench.tab.waitForTimeout(500);
    await item.click();
  }

  /**
   * Hovers the row until its tooltip holding `text` shows. A tooltip opens on the mouse entering the
   * row: when the row appeared under a mouse already there (after a quick pick closed), hovering it
   * again sends no event, so the mouse leaves the view and comes back (seen in CI).
   */
  async function tooltip(r: Locator, text: string): Promise<void> {
    await hoverUntilShown(workbench, r, workbench.tab.locator('.monaco-hover, .workbench-hover', { hasText: text }).first());
  }

  /** Opens the GPUDirect RDMA container unless it is showing (its activity-bar button toggles the sidebar), until `host`'s row is there. */
  async function showHosts(host: string): Promise<void> {
    const item = workbench.activityBarItem('GPUDirect RDMA');
    const classes = (await item.locator('xpath=..').getAttribute('class')) ?? '';
    if (!/\bchecked\b/.test(classes) || !(await sidebar().isVisible())) await item.click();
    await row(host).waitFor();
  }

  /** Diagnoses `host` from its inline action and waits, its row expanded, for the diagnosis to end. */
  async function diagnose(host: string): Promise<void> {
    await showHosts(host);
    await inline(row(host), 'Diagnose');
    await setExpanded(row(host), true);
    await sidebar()
      .locator('.monaco-list-row', { hasText: /Diagnosed .* in / })
      .first()
      .waitFor({ timeout: 60_000 });
    // The mouse leaves the host row: its tooltip (the verdict) would cover the rows below it.
    await workbench.tab.mouse.move(0, 0);
  }

  return { sidebar, row, findingRow, setExpanded, inline, tooltip, contextMenu, showHosts, diagnose };
}

/**
 * What a row shows of its label and description before the sidebar cuts it (the characters whose box
 * ends inside the row's label, less the ellipsis where it overflows), label and description joined by a
 * space. The mouse should be elsewhere: a hovered row's inline actions take room.
 */
export function visibleText(r: Locator): Promise<string> {
  return r.evaluate((rowEl) => {
    const container = (rowEl.querySelector('.monaco-icon-label-container') as HTMLElement | null) ?? (rowEl as HTMLElement);
    const box = container.getBoundingClientRect();
    const cut = container.scrollWidth > container.clientWidth + 1;
    const limit = Math.min(box.right, rowEl.getBoundingClientRect().right) - (cut ? 10 : 0) + 0.5;
    let out = '';
    for (const selector of ['.label-name', '.label-description']) {
      const el = rowEl.querySelector(selector);
      if (!el || (el.textContent ?? '') === '') continue;
      if (out !== '') out += ' ';
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        for (let i = 0; i < node.data.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          if (range.getBoundingClientRect().right > limit) return out;
          out += node.data[i];
        }
      }
    }
    return out;
  });
}
