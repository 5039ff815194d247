// Messages more than one CLI command prints, written once (translated through t()).
import { FIX_IDS } from '../core/fixes';
import { t } from '../core/l10n';

/** `cannot read FILE: ENOENT` (standard input named as such). */
export function cannotReadText(file: string, e: unknown): string {
  return t('cannot read {0}: {1}', file === '-' ? t('standard input') : file, (e as NodeJS.ErrnoException).code ?? String(e));
}

export function unknownFixText(fixId: string): string {
  return t('unknown fix {0}: the fixes are {1}', JSON.stringify(fixId), FIX_IDS.join(', '));
}
