// Busy GPUs before a measurement (prove and prove --nccl): --yes runs anyway, a terminal asks, otherwise
// nothing runs on them.
import * as tty from 'node:tty';
import { BusyGpu, busyText } from '../core/prove';
import { ParsedArgs } from './args';
import { confirmOnTerminal } from './confirm';
import { CliIo } from './io';
import { t } from '../core/l10n';

/** --yes measures; a terminal asks; otherwise a busy GPU is not measured. */
export function busyConfirmation(args: ParsedArgs, io: CliIo): (busy: readonly BusyGpu[]) => Promise<boolean> {
  return async (busy) => {
    io.stderr(
      `gdr-doctor: ${t('busy GPUs (a measurement loads the link and the GPU):')}\n${busy.map((b) => `  ${busyText(b)}\n`).join('')}`,
    );
    if (args.flags.has('--yes')) return true;
    if (args.flags.has('--batch') || !tty.isatty(0)) {
      const refusal = t(
        'not measuring busy GPUs without a yes, and there is no terminal to ask on: run again with --yes, or choose other GPUs with --gpu.',
      );
      io.stderr(`gdr-doctor prove: ${refusal}\n`);
      return false;
    }
    return confirmOnTerminal(t('Measure them anyway? [y/N] '));
  };
}
