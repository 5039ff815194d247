// The one translation function of core and the CLI: @vscode/l10n reads the same bundles as vscode.l10n
// (l10n/bundle.l10n.<locale>.json). The extension hands core its loaded bundle (useBundle); the CLI
// loads the bundle of LANG or --lang. Without a bundle, t() returns the English text formatted.
import * as l10n from '@vscode/l10n';

export const t = l10n.t;

/** Use these translations (key = English text) from now on; undefined: English. */
export function useBundle(contents: Record<string, string> | undefined): void {
  if (contents) l10n.config({ contents });
}
