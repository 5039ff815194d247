// A fleet's hosts as hosts of the Hosts view. A host reached over direct SSH is the same host as
// anywhere else (`ssh:<destination>`): its outcome is the host model's, and Diagnose, Show Topology,
// Copy Report and quick fixes act on it as on any host. A host reached through a login node has an id
// of its own fleet (`fleet:<name>/<node>`): it can be read (findings, GPUs, raw outputs); only a
// group's quick fix connects to it, through the login node (groupFix.ts). No VS Code import.
import { expandHostList } from '../../core/parsers/hostlist';
import type { FleetHostResult } from '../../core/fleet/types';
import { Outcome, sshHostId } from '../hosts/hostModel';
import { FleetConfig } from './fleetSettings';

const RELAYED_PREFIX = 'fleet:';

export function memberHostId(fleet: FleetConfig, host: string): string {
  return fleet.via === undefined ? sshHostId(host) : `${RELAYED_PREFIX}${fleet.name}/${host}`;
}

/** The ids of a fleet's hosts reached through its login node (none for a direct fleet, or a list that does not parse). */
export function relayedMemberIds(fleet: FleetConfig): string[] {
  if (fleet.via === undefined) return [];
  try {
    return expandHostList(fleet.hosts).map((host) => memberHostId(fleet, host));
  } catch {
    return [];
  }
}

export function isRelayedHostId(hostId: string): boolean {
  return hostId.startsWith(RELAYED_PREFIX);
}

/** Hosts of the fleets diagnosed over direct SSH (a fleet whose list does not parse has none). */
export function directMembers(fleets: readonly FleetConfig[]): string[] {
  return fleets
    .filter((f) => f.via === undefined)
    .flatMap((f) => {
      try {
        return expandHostList(f.hosts);
      } catch {
        return [];
      }
    });
}

/**
 * The outcome the host's node shows: what arrived (also a partial probe a deadline cut), else why
 * nothing did. A host cancelled before anything arrived keeps its previous outcome (undefined).
 */
export function outcomeOf(r: FleetHostResult, finishedAt: Date): Outcome | undefined {
  if (r.report && r.diagnosis) return { kind: 'diagnosed', report: r.report, diagnosis: r.diagnosis, target: r.target, finishedAt };
  if (r.status === 'cancelled') return undefined;
  return { kind: 'failed', step: r.error?.step ?? r.status, message: r.error?.message ?? `${r.host}: ${r.status}`, finishedAt };
}
