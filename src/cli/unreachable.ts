// The line every command prints for a host it could not reach (diagnose, a fleet's hosts, a login
// node, fix): the step classified once (classifyConnectError), so the same failure reads the same.
import { classifyConnectError } from '../core/ssh/errors';
import { t } from '../core/l10n';

export function unreachableLine(host: string, step: string, message: string): string {
  return `gdr-doctor: ${host}: ${t('cannot reach ({0}): {1}', step, message)}\n`;
}

/** `e` (whatever reaching `host` threw) as the line above. */
export function cannotReachLine(host: string, e: unknown): string {
  const err = classifyConnectError(host, e);
  return unreachableLine(host, err.step, err.message);
}
