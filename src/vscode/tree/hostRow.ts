// What a host's row says at a glance: the verdict of its last diagnosis (core's hostVerdict) as the
// description and the icon, so a green icon means "GPUDirect RDMA works here", not "reachable". A host
// not diagnosed yet says where it comes from; one that could not be reached says the step that failed.
// No VS Code import: treeItems.ts renders it, the status bar and the view badge read it too.
import { hostVerdict } from '../../core/diagnosis/hostVerdict';
import type { HostEntry, HostOrigin, HostStatus } from '../hosts/hostModel';
import type { Tone } from './nodes';
import { t } from '../../core/l10n';
import { dateTime } from '../displayLocale';

export interface HostRow {
  readonly description: string;
  /** `origin`: not diagnosed yet (the icon says where the host comes from); `unreachable`: the last attempt failed. */
  readonly look: Tone | 'origin' | 'unreachable';
  /** Plain-text lines for the tooltip (the caller escapes them). */
  readonly details: readonly string[];
  /** Error findings of the last diagnosis (0 when it failed or never ran). */
  readonly errors: number;
}

/** Where a host comes from, in words (called when shown: the words follow the display language). */
export function originText(origin: HostOrigin): string {
  const words: Record<HostOrigin, () => string> = {
    'ssh-config': () => t('ssh config'),
    added: () => t('added'),
    local: () => t('local probe'),
    demo: () => t('demo, replayed'),
    fleet: () => t('fleet'),
    cluster: () => t('Kubernetes node'),
  };
  return words[origin]();
}

export function hostRow(host: HostEntry | undefined, status: HostStatus): HostRow {
  const origin = host ? originText(host.origin) : t('through the login node');
  const last = status.last;
  const from = t('From {0}.', origin);
  if (status.working) return { description: t('diagnosing…'), look: 'working', details: [from, t('Being diagnosed.')], errors: 0 };
  if (!last)
    return {
      description: origin,
      look: 'origin',
      details: [from, t('Not diagnosed yet: nothing connects until you run Diagnose.')],
      errors: 0,
    };
  const when = dateTime(last.finishedAt);
  if (last.kind === 'failed') {
    const what = last.step === 'host-key' ? t('host key refused') : t('unreachable ({0})', last.step);
    return {
      description: what,
      look: 'unreachable',
      details: [from, t('Could not be diagnosed, {0}: {1}', when, last.message)],
      errors: 0,
    };
  }
  const verdict = hostVerdict(last.diagnosis);
  const errors = verdict.errors === 1 ? t('1 error') : t('{0} errors', verdict.errors);
  const warnings = verdict.warnings === 1 ? t('1 warning') : t('{0} warnings', verdict.warnings);
  return {
    description: verdict.text,
    look: verdict.tone,
    details: [from, t('{0} ({1}, {2}), diagnosed {3}.', verdict.text, errors, warnings, when)],
    errors: verdict.errors,
  };
}
