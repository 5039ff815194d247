// One plan text for a whole group: hosts whose plans send the same commands (and change a file the
// same way) share one block, "on N hosts: <folded list>", so the user reads the exact commands once.
// Hosts that need nothing, refuse, or could not be reached are listed after. No VS Code import.
import { FixId, FixPlan, formatPlan } from '../../core/fixes';
import { foldHostList } from '../../core/parsers/hostlist';
import type { HostEntry } from '../hosts/hostModel';
import { t } from '../../core/l10n';

export interface Prepared<H extends Pick<HostEntry, 'label'> = Pick<HostEntry, 'label'>> {
  readonly host: H;
  readonly plan?: FixPlan;
  /** Why no plan could be made (connection). */
  readonly error?: string;
}

/** Plans that would do exactly the same thing on their hosts. */
function planKey(p: FixPlan): string {
  return JSON.stringify([
    p.status,
    p.module,
    p.privilege,
    p.steps.map((s) => s.command),
    p.fileChange?.diff ?? null,
    (p.otherFileChanges ?? []).map((c) => c.diff),
    p.status === 'ready' ? '' : p.summary,
  ]);
}

export function groupPlanText(fixId: FixId, prepared: readonly Prepared[]): string {
  const blocks = new Map<string, { plan: FixPlan; hosts: string[] }>();
  const unreached: string[] = [];
  for (const p of prepared) {
    if (!p.plan) {
      unreached.push(`  ${p.host.label}: ${p.error ?? t('no plan')}`);
      continue;
    }
    const key = planKey(p.plan);
    const block = blocks.get(key) ?? { plan: p.plan, hosts: [] };
    block.hosts.push(p.host.label);
    blocks.set(key, block);
  }
  // Ready plans first: they are what Apply runs.
  const ordered = [...blocks.values()].sort((a, b) => Number(b.plan.status === 'ready') - Number(a.plan.status === 'ready'));
  const text = ordered.map(({ plan, hosts }) => {
    const folded = foldHostList(hosts);
    return `${formatPlan({ ...plan, host: folded })}\n  ${hosts.length === 1 ? t('on 1 host: {0}', folded) : t('on {0} hosts: {1}', hosts.length, folded)}`;
  });
  if (unreached.length > 0) text.push(`${t('{0}: no plan (not changed):', fixId)}\n${unreached.join('\n')}`);
  return text.join('\n\n');
}
