// What a host's row says at a glance: the verdict of its last diagnosis (core's hostVerdict) as the
// description and the icon, so a green icon means "GPUDirect RDMA works here", not "reachable". A host
// not diagnosed yet says where it comes from; one that could not be reached says the step that failed.
// No VS Code import: treeItems.ts renders it, the status bar and the view badge read it too.
import { hostVerdict } from '../../core/diagnosis/hostVerdict';
import type { HostEntry, HostOrigin, HostStatus } from '../hosts/hostModel';
import type { Tone } from './nodes';

export interface HostRow {
  readonly description: string;
  /** `origin`: not diagnosed yet (the icon says where the host comes from); `unreachable`: the last attempt failed. */
  readonly look: Tone | 'origin' | 'unreachable';
  /** Plain-text lines for the tooltip (the caller escapes them). */
  readonly details: readonly string[];
  /** Error findings of the last diagnosis (0 when it failed or never ran). */
  readonly errors: number;
}

export const ORIGIN_TEXT: Record<HostOrigin, string> = { 'ssh-config': 'ssh config', added: 'added', local: 'local probe', demo: 'demo, replayed', fleet: 'fleet' };

export function hostRow(host: HostEntry | undefined, status: HostStatus): HostRow {
  const origin = host ? ORIGIN_TEXT[host.origin] : 'through the login node';
  const last = status.last;
  if (status.working) return { description: 'diagnosing…', look: 'working', details: [`From ${origin}.`, 'Being diagnosed.'], errors: 0 };
  if (!last) return { description: origin, look: 'origin', details: [`From ${origin}.`, 'Not diagnosed yet: nothing connects until you run Diagnose.'], errors: 0 };
  const when = `${last.finishedAt.toLocaleString()}`;
  if (last.kind === 'failed') {
    const what = last.step === 'host-key' ? 'host key refused' : `unreachable (${last.step})`;
    return { description: what, look: 'unreachable', details: [`From ${origin}.`, `Could not be diagnosed, ${when}: ${last.message}`], errors: 0 };
  }
  const verdict = hostVerdict(last.diagnosis);
  const counts = `${verdict.errors} error${verdict.errors === 1 ? '' : 's'}, ${verdict.warnings} warning${verdict.warnings === 1 ? '' : 's'}`;
  return { description: verdict.text, look: verdict.tone, details: [`From ${origin}.`, `${verdict.text} (${counts}), diagnosed ${when}.`], errors: verdict.errors };
}
