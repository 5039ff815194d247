// A raw output as the user reads it (the Hosts view's raw-output documents): what the host printed,
// exactly, stderr after stdout when both have text. One place, so a line number found here (a finding's
// evidence, evidenceLocation.ts) is the line the document shows.
import type { CommandResult } from './frames';

export function rawOutputText(c: Pick<CommandResult, 'stdout' | 'stderr'>): string {
  if (c.stderr.trim() === '') return c.stdout;
  return c.stdout.trim() === '' ? c.stderr : `${c.stdout}\n--- stderr ---\n${c.stderr}`;
}
