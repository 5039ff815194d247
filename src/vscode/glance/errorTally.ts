// How many errors the Hosts view holds, for its badge: error findings of every host's last outcome
// (listed hosts and fleets' hosts, each host once) and hosts that could not be diagnosed. No VS Code import.
import { hostVerdict } from '../../core/diagnosis/hostVerdict';
import { memberHostId } from '../fleet/fleetMembers';
import type { FleetModel } from '../fleet/fleetModel';
import type { HostModel } from '../hosts/hostModel';
import { t as tr } from '../../core/l10n';

export interface ErrorTally {
  /** Error findings plus unreachable hosts: the badge's number. */
  readonly count: number;
  readonly errorFindings: number;
  readonly hostsWithErrors: number;
  readonly unreachable: number;
}

export function errorTally(model: HostModel, fleets: FleetModel): ErrorTally {
  const ids = new Set(model.hosts().map((h) => h.id));
  for (const fleet of fleets.fleets()) {
    for (const r of fleets.state(fleet.name).results ?? []) ids.add(memberHostId(fleet, r.host));
  }
  let errorFindings = 0;
  let hostsWithErrors = 0;
  let unreachable = 0;
  for (const id of ids) {
    const last = model.status(id).last;
    if (last?.kind === 'failed') unreachable++;
    if (last?.kind !== 'diagnosed') continue;
    const { errors } = hostVerdict(last.diagnosis);
    errorFindings += errors;
    if (errors > 0) hostsWithErrors++;
  }
  return { count: errorFindings + unreachable, errorFindings, hostsWithErrors, unreachable };
}

/** "2 errors on 1 host, 1 host unreachable": the badge's tooltip. */
export function tallyText(t: ErrorTally): string {
  const parts: string[] = [];
  if (t.errorFindings > 0) {
    const errors = t.errorFindings === 1 ? tr('1 error') : tr('{0} errors', t.errorFindings);
    parts.push(t.hostsWithErrors === 1 ? tr('{0} on 1 host', errors) : tr('{0} on {1} hosts', errors, t.hostsWithErrors));
  }
  if (t.unreachable > 0) parts.push(t.unreachable === 1 ? tr('1 host unreachable') : tr('{0} hosts unreachable', t.unreachable));
  return parts.join(', ');
}
