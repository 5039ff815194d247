// One rule for telling the user that hosts could not be diagnosed, whether they were picked in the
// Hosts view or make up a fleet: every failure is said; all failed is an error, some a warning.
// No VS Code import (the caller shows it, with Retry / Open SSH Config / Show Log).
import { t } from '../../core/l10n';

export interface HostFailure {
  readonly host: string;
  /** Names the host, the step and what was said (classifyConnectError's message). */
  readonly message: string;
}

export interface FailureNotice {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** The hosts that failed, to retry. */
  readonly hosts: readonly string[];
}

/** Hosts named in a notice before "+N more". */
const NAMED = 4;

/** `total` hosts were asked for, `failed` could not be diagnosed; `fleet` names the fleet they belong to. */
export function failureNotice(total: number, failed: readonly HostFailure[], fleet?: string): FailureNotice | undefined {
  if (failed.length === 0) return undefined;
  const hosts = failed.map((f) => f.host);
  const of = fleet === undefined ? '' : t(' of fleet {0}', fleet);
  if (total === 1) return { severity: 'error', message: t('Diagnose failed{0}: {1}', of, failed[0].message), hosts };
  const first = failed.length > 1 ? t(' First: {0}', failed[0].message) : ` ${failed[0].message}`;
  if (failed.length === total) {
    return { severity: 'error', message: t('Diagnose failed for all {0} hosts{1}.{2}', total, of, first), hosts };
  }
  const named = hosts.length > NAMED ? t('{0} +{1} more', hosts.slice(0, NAMED).join(', '), hosts.length - NAMED) : hosts.join(', ');
  return { severity: 'warning', message: t('{0} of {1} hosts{2} could not be diagnosed ({3}).{4}', failed.length, total, of, named, first), hosts };
}
