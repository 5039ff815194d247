// A finding's context value names each quick fix it offers, so package.json's menus can show one
// inline action per fix id with a `viewItem =~` match. No VS Code import: unit-tested as plain data.
import { ContextValues } from '../../constants';
import { FixId, isFixId } from '../../core/fixes';

const FIX_MARK = ';fix=';

/** `gdrDoctor.finding`, then `;fix=<id>` per offered fix, e.g. `gdrDoctor.finding;fix=load-peermem`. */
export function findingContextValue(fixes: readonly string[]): string {
  return fixContextValue(ContextValues.finding, fixes);
}

/** `base`, then `;fix=<id>` per offered fix: the same inline actions on a fleet's group as on a finding. */
export function fixContextValue(base: string, fixes: readonly string[]): string {
  return (
    base +
    fixes
      .filter(isFixId)
      .map((f) => `${FIX_MARK}${f}`)
      .join('')
  );
}

/** The `when` clause of the inline action for one fix (what package.json's menu must say). */
export function fixMenuWhen(view: string, fixId: FixId): string {
  return `view == ${view} && viewItem =~ /;fix=${fixId}(;|$)/`;
}
