// The demo's own words, in one place (the CLI and the extension show them).
import { t } from '../../l10n';
export const DEMO_TEXT = {
  /** Added to every plan made on the demo host. */
  simulatedNote: (): string =>
    t(
      'Simulated: the demo host is replayed from recordings, so applying this changes only its replayed state; nothing runs on any machine. Reset Demo Host (in VS Code) restores it; the CLI starts from the recordings every time.',
    ),
  /** What the demo's shell says to a command that is not one of the quick fixes' own. */
  notAFixCommand: (): string =>
    t("gdr-doctor demo: the demo host is replayed from recordings and answers only the quick fixes' own commands; nothing ran."),
} as const;
