// The fleet bench's own lab: compute hosts gpu01… with their own addresses (network namespaces on
// the bench's own bridge and subnet, so it runs beside the tests' labs), a login node, and a real
// Slurm across them (slurmctld on the login node, slurmd in every compute host). Its own records
// file: a crashed run's leftovers are undone by the next run, never another run's.
// The compute hosts use the bench profile's delays (bench-healthy: nvidia-smi answers after 2 s).
import { noPrompts } from '../src/core/ssh/prompts';
import { openSsh } from '../src/core/ssh/openSsh';
import { Lab, LabHostSpec, LabNetwork, startLab } from '../test/lab/lab';
import { BenchProfile, benchProfile, checkDelays, cleanupBenchLeftovers, DelayCheck, stopLab } from './benchLab';

export const FLEET_RECORDS_PATH = '/tmp/gdrlab-records-bench-fleet.json';
export const FLEET_NETWORK: LabNetwork = { bridge: 'gdrbr10', subnet: 10 };
export const LOGIN_HOST = 'login';

export interface FleetLab {
  readonly lab: Lab;
  /** gpu01, gpu02, …: every compute host, in order. */
  readonly nodes: string[];
  readonly profile: BenchProfile;
  /** Why the lab has no Slurm (it could not start), or undefined when it has. */
  readonly slurmMissing?: string;
  stop(): Promise<void>;
}

export function computeNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `gpu${String(i + 1).padStart(2, '0')}`);
}

function specs(nodes: readonly string[], profile: BenchProfile): LabHostSpec[] {
  return [
    { name: LOGIN_HOST, profile: 'no-gpu', netns: true, login: true },
    ...nodes.map((name) => ({ name, profile: profile.profileDir, netns: true, delays: profile.delays })),
  ];
}

/**
 * Starts `count` compute hosts and the login node, with Slurm; when Slurm cannot start, says why
 * and starts the same hosts without it (the Slurm part of the bench is then skipped).
 */
export async function startFleetLab(profileName: string, count: number): Promise<FleetLab> {
  const profile = benchProfile(profileName);
  const nodes = computeNames(count);
  await cleanupBenchLeftovers(FLEET_RECORDS_PATH);
  const base = { hosts: specs(nodes, profile), recordsPath: FLEET_RECORDS_PATH, network: FLEET_NETWORK, readyTimeoutMs: 60_000 };
  let slurmMissing: string | undefined;
  let lab: Lab;
  try {
    lab = await startLab({ ...base, slurm: { controller: LOGIN_HOST, nodes } });
  } catch (e) {
    slurmMissing = `the lab could not start with Slurm: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
    console.log(`${slurmMissing}; starting it without`);
    await cleanupBenchLeftovers(FLEET_RECORDS_PATH); // startLab undid its own steps; this is for safety only
    lab = await startLab(base);
  }
  return { lab, nodes, profile, slurmMissing, stop: () => stopLab(lab) };
}

/** Whether the profile's delays took effect, timed on the first compute host. */
export async function checkFleetDelays(f: FleetLab): Promise<DelayCheck> {
  const conn = await openSsh(f.nodes[0], { prompts: noPrompts, configFile: f.lab.sshConfigPath });
  try {
    return await checkDelays(conn.client, f.profile.delays);
  } finally {
    conn.close();
  }
}
