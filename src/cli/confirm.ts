// A yes/no question on the terminal itself, for what changes a host (a fix) or loads it (a proof).
import { terminalWriter } from './terminalPrompts';
import { rawTtyTerminal } from './ttyLine';

/**
 * Asks on the terminal itself (/dev/tty), like ssh and sudo, so the question is seen even when
 * stdout carries JSON and stderr goes to a file; only "y" or "yes" is a yes.
 */
export async function confirmOnTerminal(question: string): Promise<boolean> {
  const term = rawTtyTerminal(process.stdin, terminalWriter());
  term.write(question);
  const answer = await term.readLine(true);
  return answer !== null && /^y(es)?$/i.test(answer.trim());
}
