// How one probe command ended, in the few words the CLI report and the Hosts tree's raw outputs show
// beside it, and why its output could not be read, so every view says it the same way.
import { factOfCommand } from './facts';
import { CommandResult } from './frames';
import { ProbeReport } from './runProbe';

export function commandStatus(c: CommandResult): string {
  if (c.state === 'not-run') return 'not run';
  if (c.missing) return 'missing';
  if (c.timedOut) return 'timed out';
  if (c.state === 'cut-off') return 'cut off';
  if (c.truncated) return 'truncated';
  return c.exitCode === 0 ? 'ok' : `exit ${c.exitCode ?? '?'}`;
}

/** "unreadable output, line N: why" when the command's output did not parse, else undefined. */
export function unreadableOutput(report: ProbeReport, c: CommandResult): string | undefined {
  const parsed = factOfCommand(report.facts, c.id)?.parsed;
  return parsed && !parsed.ok ? `unreadable output, line ${parsed.error.line}: ${parsed.error.message}` : undefined;
}
