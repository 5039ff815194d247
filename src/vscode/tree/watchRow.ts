// A watched host's one row under its status: what changed since when ("Since 14:05: nvidia_peermem
// unloaded"), red when it got worse, or only that it is watched. No VS Code import.
import type { WatchState } from '../hosts/hostModel';
import type { HostsNode } from './nodes';
import { t } from '../../core/l10n';
import { dateTime, timeOfDay } from '../displayLocale';

export function watchRow(scope: string, hostId: string, watch: WatchState): HostsNode {
  const every = t('watching every {0} min', watch.everyMinutes);
  const change = watch.change;
  if (!change) return { kind: 'row', id: `${scope}/watch`, hostId, label: t('Watching'), description: every, tone: 'idle', tooltip: every };
  return {
    kind: 'row',
    id: `${scope}/watch`,
    hostId,
    label: t('Since {0}: {1}', timeOfDay(change.since), change.headline),
    description: every,
    tone: change.worse ? 'error' : 'warning',
    // Plain text (a string tooltip is not rendered as Markdown): every change, as gdr-doctor diff words them.
    tooltip: [t('Changed since the diagnosis of {0}:', dateTime(change.since)), ...change.lines].join('\n'),
  };
}
