// The `gdrDoctor.fleets` setting as typed data. Settings are user-edited JSON: an entry with a
// missing name or host list is dropped here (and named, so the log can say why) rather than
// reaching a command line. No VS Code import: unit-tested as plain data.
import { isRelayTool, RELAY_TOOL_CHOICES, RelayTool } from '../../core/transport';

export interface FleetConfig {
  readonly name: string;
  /** Host list as pdsh/ClusterShell write it (`gpu[01-64]`); expanded when diagnosed. */
  readonly hosts: string;
  /** Login node (SSH destination); undefined: each host over direct SSH. */
  readonly via?: string;
  /** What the login node runs the probe with; undefined: the preferred one it offers, found when diagnosing (preferredRelayTool). */
  readonly with?: RelayTool;
  readonly partition?: string;
}

export interface ParsedFleets {
  readonly fleets: FleetConfig[];
  /** Why entries were dropped, one line each. */
  readonly problems: string[];
}

export function parseFleets(raw: unknown): ParsedFleets {
  const fleets: FleetConfig[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of (Array.isArray(raw) ? raw : []).entries()) {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const name = text(e.name);
    const hosts = text(e.hosts);
    if (name === undefined || hosts === undefined) {
      problems.push(`gdrDoctor.fleets[${i}]: needs a name and a host list`);
      continue;
    }
    if (seen.has(name)) {
      problems.push(`gdrDoctor.fleets[${i}]: a fleet named ${name} comes earlier; this one is ignored`);
      continue;
    }
    seen.add(name);
    const tool = text(e.with);
    if (tool !== undefined && !isRelayTool(tool))
      problems.push(`${name}: "with" must be ${RELAY_TOOL_CHOICES}; the login node's tools are detected instead`);
    const via = text(e.via);
    fleets.push({
      name,
      hosts,
      ...(via !== undefined ? { via, ...(tool !== undefined && isRelayTool(tool) ? { with: tool } : {}) } : {}),
      ...(text(e.partition) !== undefined ? { partition: text(e.partition) } : {}),
    });
  }
  return { fleets, problems };
}

/** The JSON stored back into settings (no undefined keys). */
export function fleetToSetting(f: FleetConfig): Record<string, string> {
  const out: Record<string, string> = { name: f.name, hosts: f.hosts };
  if (f.via !== undefined) out.via = f.via;
  if (f.with !== undefined && f.via !== undefined) out.with = f.with;
  if (f.partition !== undefined) out.partition = f.partition;
  return out;
}

/** The setting with `fleet` appended: the entries already there stay as written, malformed ones too. */
export function withFleetAdded(raw: unknown, fleet: FleetConfig): unknown[] {
  return [...(Array.isArray(raw) ? raw : []), fleetToSetting(fleet)];
}

/** The setting without the entries named `name`; every other entry stays as written. */
export function withFleetRemoved(raw: unknown, name: string): unknown[] {
  return (Array.isArray(raw) ? raw : []).filter(
    (e) => typeof e !== 'object' || e === null || text((e as Record<string, unknown>).name) !== name,
  );
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}
