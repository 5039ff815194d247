// Typed settings. Adapters read them once per action and pass plain values to the core; one
// listener tells the host model when something it shows (config file, added hosts) changed.
import * as vscode from 'vscode';
import { Settings } from '../constants';
import { DEFAULT_NCCL, NcclAssumptions, readNcclAssumptions } from '../core/diagnosis';
import { DEFAULT_FLEET_CONCURRENCY } from '../core/fleet/fanout';
import { FleetConfig, parseFleets } from './fleet/fleetSettings';

export type StrictDefault = 'ask' | 'yes' | 'accept-new';

export interface GdrSettings {
  /** `-F FILE` for every SSH host; undefined: ~/.ssh/config (as ssh). */
  readonly sshConfigFile: string | undefined;
  /** Destinations added by hand (`user@host:port`). */
  readonly hosts: readonly string[];
  /** Replaces ssh's default `ask` where the user's ssh_config does not set StrictHostKeyChecking. */
  readonly strictHostKeyChecking: StrictDefault;
  readonly connectTimeoutMs: number;
  /** undefined: the probe's own deadline (sum of its commands' limits). */
  readonly probeDeadlineMs: number | undefined;
  /** Hosts diagnosed at once: a fleet's fan-out and a multi-selection alike (default pdsh's 32). */
  readonly maxConcurrentHosts: number;
  readonly fleets: readonly FleetConfig[];
  /** Fleet entries that were dropped, and why. */
  readonly fleetProblems: readonly string[];
  /** The NCCL release and environment verdicts are computed for. */
  readonly nccl: NcclAssumptions;
  /** Why gdrDoctor.ncclVersion / ncclEnv were not used as written (then the newest release, no env). */
  readonly ncclProblem: string | null;
  /** gdrDoctor.ncclTestsDir: where Prove with NCCL finds nccl-tests on the nodes; null: their PATH. */
  readonly ncclTestsDir: string | null;
}

export function readSettings(): GdrSettings {
  const c = vscode.workspace.getConfiguration(Settings.section);
  const configFile = c.get<string>(Settings.sshConfigFile, '').trim();
  const probeS = c.get<number>(Settings.probeTimeoutSeconds, 0);
  const fleets = parseFleets(c.get<unknown>(Settings.fleets, []));
  return {
    sshConfigFile: configFile === '' ? undefined : expandHome(configFile),
    hosts: c
      .get<string[]>(Settings.hosts, [])
      .filter((h) => typeof h === 'string' && h.trim() !== '')
      .map((h) => h.trim()),
    strictHostKeyChecking: c.get<StrictDefault>(Settings.strictHostKeyChecking, 'ask'),
    connectTimeoutMs: Math.max(1, c.get<number>(Settings.connectTimeoutSeconds, 30)) * 1000,
    probeDeadlineMs: probeS > 0 ? probeS * 1000 : undefined,
    maxConcurrentHosts: Math.max(1, Math.floor(c.get<number>(Settings.maxConcurrentHosts, DEFAULT_FLEET_CONCURRENCY))),
    fleets: fleets.fleets,
    fleetProblems: fleets.problems,
    ...readNccl(c),
    ncclTestsDir: c.get<string>(Settings.ncclTestsDir, '').trim() || null,
  };
}

/** gdrDoctor.ncclVersion ("" = newest modelled) and gdrDoctor.ncclEnv ({ "NCCL_NET_GDR_LEVEL": "PHB" }). */
function readNccl(c: vscode.WorkspaceConfiguration): { nccl: NcclAssumptions; ncclProblem: string | null } {
  const env = c.get<unknown>(Settings.ncclEnv, {});
  const entries =
    env !== null && typeof env === 'object' && !Array.isArray(env)
      ? Object.entries(env)
          .filter(([, v]) => typeof v === 'string')
          .map(([k, v]) => `${k}=${v as string}`)
      : [];
  const read = readNcclAssumptions(c.get<string>(Settings.ncclVersion, ''), entries);
  return typeof read === 'string' ? { nccl: DEFAULT_NCCL, ncclProblem: read } : { nccl: read, ncclProblem: null };
}

export async function writeAddedHosts(hosts: readonly string[]): Promise<void> {
  await vscode.workspace.getConfiguration(Settings.section).update(Settings.hosts, [...hosts], vscode.ConfigurationTarget.Global);
}

/** Rewrites gdrDoctor.fleets from its current raw value, so hand-written entries (even malformed ones) survive. */
export async function updateFleets(change: (raw: unknown) => unknown[]): Promise<void> {
  const c = vscode.workspace.getConfiguration(Settings.section);
  await c.update(Settings.fleets, change(c.get<unknown>(Settings.fleets, [])), vscode.ConfigurationTarget.Global);
}

/** `ncclChanged`: the NCCL release or environment changed, so kept diagnoses must be recomputed. */
export function onSettingsChanged(listener: (ncclChanged: boolean) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration(Settings.section)) return;
    const nccl = [Settings.ncclVersion, Settings.ncclEnv].some((key) => e.affectsConfiguration(`${Settings.section}.${key}`));
    listener(nccl);
  });
}

function expandHome(file: string): string {
  const home = process.env.HOME ?? '';
  return file === '~' || file.startsWith('~/') ? home + file.slice(1) : file;
}
