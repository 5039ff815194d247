// NCCL's configuration on the host, merged with what the user says the job sets, in NCCL's own order
// (src/misc/param.cc initEnv, every release modelled): the job's environment first, then ~/.nccl.conf,
// then /etc/nccl.conf; each file only sets what is still unset (setenv without overwrite), so within a
// file its first line for a name wins. Only the variables that change a verdict are taken. Plus the XML
// topologies the probe read, for topology/nccl/topoFile.ts.
import type { ProbeReport } from '../probe/runProbe';
import { NcclConfFile, VIRTUAL_TOPOLOGY } from '../probe/ncclConfig';
import { NCCL_ENV_NAMES } from '../topology/nccl/env';
import { HostTopoFiles } from '../topology/nccl/topoFile';
import { parseTopoXml } from '../topology/nccl/topoXml';
import { NcclVersion, atLeast } from '../topology/nccl/version';
import { factOf } from './evidence';
import { NcclAssumptions } from './ncclAssumptions';

/** Where a variable of the effective environment came from: the job (`--nccl-env`, settings) or a file, with its line. */
export interface NcclEnvOrigin {
  readonly from: 'environment' | string;
  readonly line: number | null;
}

export interface HostNccl {
  /** The user's release and the merged environment: what NCCL runs with on this host. */
  readonly assumptions: NcclAssumptions;
  /** Each variable of `assumptions.env` and where it was set. */
  readonly origins: Readonly<Record<string, NcclEnvOrigin>>;
}

export function withHostConfig(nccl: NcclAssumptions, report: ProbeReport): HostNccl {
  const env: Record<string, string> = { ...nccl.env };
  const origins: Record<string, NcclEnvOrigin> = Object.fromEntries(
    Object.keys(nccl.env).map((k) => [k, { from: 'environment', line: null }]),
  );
  const files = factOf(report, 'nccl-conf')?.files ?? [];
  // ~/.nccl.conf before /etc/nccl.conf: the first file to set a name wins.
  for (const file of [...files.filter((f) => f.scope === 'user'), ...files.filter((f) => f.scope === 'system')]) {
    for (const entry of file.entries) {
      if (!(NCCL_ENV_NAMES as readonly string[]).includes(entry.name) || Object.hasOwn(env, entry.name)) continue;
      env[entry.name] = confValue(entry.value, nccl.version);
      origins[entry.name] = { from: file.path, line: entry.line };
    }
  }
  return { assumptions: { ...nccl, env }, origins };
}

/** setEnvFile strips a trailing CR from 2.30.3 (v2.30.3-1 src/misc/param.cc); before, the value keeps it. */
function confValue(value: string, version: NcclVersion): string {
  return atLeast(version, 2, 30, 3) && value.endsWith('\r') ? value.slice(0, -1) : value;
}

/** The topology files the probe printed, parsed, and every path it looked for; null when it did not look. */
export function hostTopoFiles(report: ProbeReport): HostTopoFiles | null {
  const topo = factOf(report, 'nccl-topo');
  if (!topo) return null;
  const confs = factOf(report, 'nccl-conf')?.files ?? [];
  return {
    read: topo.files.map((f) => ({ path: f.path, xml: parseTopoXml(f.text, f.path), truncated: f.truncated })),
    looked: [VIRTUAL_TOPOLOGY, ...confs.flatMap(firstTopoFile)],
  };
}

/** The probe's `sed -n 's/^NCCL_TOPO_FILE=//p' | head -n 1` of one conf file. */
function firstTopoFile(file: NcclConfFile): string[] {
  const first = file.entries.find((e) => e.name === 'NCCL_TOPO_FILE');
  return first ? [first.value] : [];
}
