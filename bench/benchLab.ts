// The bench's own lab: loopback-only hosts, its own records file (another run may be using the
// default one at the same time), and per-command delays so the parallel probe has something to
// win against a sequential run.
//
// Delays are a lab feature (`"delays": { "<command name>": <ms> }` in profile.json, or the
// host-spec override `delays`, applied by the fake commands). The bench uses the profile's own
// delays when it has some, else the fallback below; it never edits test/lab/profiles. It then
// measures whether the delays took effect and says so.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'ssh2';
import { PROBE_COMMANDS } from '../src/core/probe/commands';
import { exec } from '../src/core/ssh/exec';
import { cleanupStale, Lab, LabHostSpec, startLab } from '../test/lab/lab';

export const BENCH_RECORDS_PATH = '/tmp/gdr-doctor-lab-bench.records.json';
export const BENCH_HOST = 'bench-gpu';
/** A second host, profile `healthy` without delays: the probe's CPU cost on the host (hostCpu.ts). */
export const BENCH_CPU_HOST = 'bench-cpu';
const PROFILES_DIR = path.join(__dirname, '../test/lab/profiles');

/**
 * Used only when the profile records no delays. An ESTIMATE, not a recording: nvidia-smi on an
 * 8-GPU node with persistence mode on answers in a few hundred ms; without persistence mode it takes
 * seconds (GoogleCloudPlatform/ai-infra-cluster-provisioning#227 "nvidia-smi takes forever without
 * it"; netdata/netdata#14522: `nvidia-smi -q -x` ~6 s on a multi-GPU server). The other commands
 * are fast on real hosts and already cost a fake's own run time (a bash script) in the lab.
 */
export const FALLBACK_DELAYS_MS: Readonly<Record<string, number>> = { 'nvidia-smi': 400 };

export type Delays = Record<string, number>;

export interface BenchLab {
  readonly lab: Lab;
  readonly delays: Delays;
  /** Where the delays came from, for the output. */
  readonly delaysSource: string;
  stop(): Promise<void>;
}

/** The profile's own delays, following `base` as the lab does (own keys replace the base's). */
function profileDelays(profileDir: string): Delays | null {
  const json = JSON.parse(fs.readFileSync(path.join(profileDir, 'profile.json'), 'utf8')) as { delays?: unknown; base?: unknown };
  const d = json.delays;
  if (d !== null && typeof d === 'object' && !Array.isArray(d) && Object.keys(d).length > 0) return d as Delays;
  if (typeof json.base !== 'string') return null;
  return profileDelays(path.isAbsolute(json.base) ? json.base : path.join(PROFILES_DIR, json.base));
}

export interface BenchProfile {
  readonly profileDir: string;
  readonly delays: Delays;
  /** Where the delays came from, for the output. */
  readonly delaysSource: string;
}

/** The profile's folder and the delays a bench host gets: the profile's own, else the fallback. */
export function benchProfile(profile: string): BenchProfile {
  const profileDir = path.isAbsolute(profile) ? profile : path.join(PROFILES_DIR, profile);
  if (!fs.existsSync(path.join(profileDir, 'profile.json'))) throw new Error(`no lab profile ${profileDir}`);
  const own = profileDelays(profileDir);
  const delays = own ?? { ...FALLBACK_DELAYS_MS };
  const delaysSource = own ? `profile ${profile}'s own "delays"` : 'bench fallback estimate (the profile has no "delays")';
  return { profileDir, delays, delaysSource };
}

/** Undoes what a crashed run of this bench left in `recordsPath` (only that path: never another run's). */
export async function cleanupBenchLeftovers(recordsPath: string): Promise<void> {
  const stale = await cleanupStale(recordsPath);
  if (stale.length) console.log(`cleaned a previous bench run's leftovers: ${stale.join('; ')}`);
}

/**
 * lab.stop() waits for its hosts' exit events, but their child handles are unref'd: with nothing
 * else pending, Node would exit before those arrive, leaving the records file behind (the next
 * run would have to clean up). A timer holds the process until the stop is complete.
 */
export async function stopLab(lab: Lab): Promise<void> {
  const hold = setInterval(() => undefined, 1000);
  try {
    await lab.stop();
  } finally {
    clearInterval(hold);
  }
}

export async function startBenchLab(profile: string): Promise<BenchLab> {
  const { profileDir, delays, delaysSource } = benchProfile(profile);
  await cleanupBenchLeftovers(BENCH_RECORDS_PATH);
  // The lab's host-spec override (merged over the profile's own delays); a lab too old for it
  // ignores the key, and checkDelays then reports the delays as not in effect.
  const spec: LabHostSpec & { delays?: Delays } = { name: BENCH_HOST, profile: profileDir, delays };
  const cpu: LabHostSpec = { name: BENCH_CPU_HOST, profile: path.join(PROFILES_DIR, 'healthy') };
  const lab = await startLab({ hosts: [spec, cpu], recordsPath: BENCH_RECORDS_PATH });
  return { lab, delays, delaysSource, stop: () => stopLab(lab) };
}

export interface DelayCheck {
  readonly inEffect: boolean;
  /** One line per delayed command: wanted vs measured on the host. */
  readonly lines: string[];
}

/**
 * Times each delayed command ALONE on the host, over an open connection. Alone, not inside the
 * probe: there every command runs at once and a fake (a bash script) slowed by CPU contention
 * could pass for a delayed one; alone an undelayed fake takes a few tens of ms.
 */
export async function checkDelays(client: Client, delays: Delays): Promise<DelayCheck> {
  const lines: string[] = [];
  let inEffect = true;
  for (const [name, wanted] of Object.entries(delays)) {
    const spec = PROBE_COMMANDS.find((c) => c.command.split(' ')[0] === name);
    if (spec === undefined) {
      lines.push(`${name}: delay ${wanted} ms, not a probe command (no effect on the bench)`);
      continue;
    }
    const took = await timeAlone(client, spec.command);
    if (took === null || took < wanted) inEffect = false;
    lines.push(`${spec.command}: delay ${wanted} ms, ran alone in ${took ?? '?'} ms on the host`);
  }
  return { inEffect: inEffect && lines.length > 0, lines };
}

async function timeAlone(client: Client, command: string): Promise<number | null> {
  const script = `t0=$(date +%s%N); ${command} >/dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 ))`;
  const r = await exec(client, script, { timeoutMs: 30_000, maxBytes: 4096 });
  const ms = Number(r.stdout.toString('utf8').trim());
  return r.exitCode === 0 && Number.isFinite(ms) ? ms : null;
}
