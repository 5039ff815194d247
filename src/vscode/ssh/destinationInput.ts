// Checks an SSH destination while it is typed in an input box (Add Host, a fleet's login node), with
// the parser every connection uses, so what the box accepts is what connects. No VS Code import.
import { errorText } from '../../core/errorText';
import { parseDestination } from '../../core/ssh/destination';

/** undefined when `typed` reads as a destination (or is empty and `optional`), else what is wrong. */
export function destinationProblem(typed: string, optional = false): string | undefined {
  if (typed.trim() === '') return optional ? undefined : 'Type a host name or user@host.';
  try {
    parseDestination(typed.trim());
    return undefined;
  } catch (e) {
    return errorText(e);
  }
}
