import { MlnxQos } from '../../core/parsers/mlnxQos';
import { t } from '../../core/l10n';

/** The trust mode, the PFC priorities, and (trust dscp) the DSCP values of each priority. */
export function summarizeMlnxQos(q: MlnxQos): string {
  const pfc =
    q.pfcEnabled === null
      ? t('no PFC rows')
      : q.pfcEnabled.length === 0
        ? t('PFC on no priority')
        : t('PFC on priority {0}', q.pfcEnabled.join(', '));
  const lines = [`mlnx_qos: ${t('trust {0}', q.trust ?? '?')}; ${pfc}`];
  for (let prio = 0; prio < 8; prio++) {
    const dscps = q.dscpPriority.flatMap((p, dscp) => (p === prio ? [dscp] : []));
    if (dscps.length > 0) lines.push(`  ${t('priority {0} ← DSCP {1}', prio, dscps.join(','))}`);
  }
  return lines.join('\n');
}
