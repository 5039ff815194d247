// The probe's own cost on the host: the CPU time (user + sys) the host spends on one probe, against
// the same commands run one after another and all at once by a hand-written script
// (sequentialCommand.ts), on a lab host whose fake commands
// answer at once (profile `healthy`, no delays: the commands' CPU, not their waiting, is measured).
// Each run is `/bin/sh -c '/bin/sh -s; times >&2'` over an open connection, the script on stdin:
// `times` prints the CPU of the inner shell and everything it waited for, i.e. the whole probe
// (every command, the script's own processes), and nothing of sshd or the login shell.
import { Client } from 'ssh2';
import { PROBE_COMMANDS } from '../src/core/probe/commands';
import { parseFrames } from '../src/core/probe/frames';
import { buildProbeScript } from '../src/core/probe/script';
import { exec } from '../src/core/ssh/exec';
import { parallelCommand, sequentialCommand } from './sequentialCommand';
import { inRotation } from './stats';

const MEASURED = "/bin/sh -c '/bin/sh -s; times >&2'";

/** CPU ms of one run: `times`' two lines (the shell's own, its children's), user + sys of both. */
function cpuMs(stderr: string): number {
  const fields = stderr.trim().split('\n').slice(-2).join(' ').split(/\s+/);
  const secs = fields.map((f) => /^(\d+)m([\d.]+)s$/.exec(f)).map((m) => (m ? Number(m[1]) * 60 + Number(m[2]) : NaN));
  if (secs.length !== 4 || secs.some(Number.isNaN)) throw new Error(`cannot read \`times\` output: ${JSON.stringify(stderr.slice(-200))}`);
  return secs.reduce((a, b) => a + b, 0) * 1000;
}

async function probeCpu(client: Client): Promise<number> {
  const { script, boundary } = buildProbeScript(PROBE_COMMANDS);
  const r = await exec(client, MEASURED, { stdin: script, timeoutMs: 120_000, maxBytes: 1 << 28 });
  const framed = parseFrames(r.stdout, boundary, PROBE_COMMANDS);
  if (!framed.done || framed.results.some((c) => !c.complete))
    throw new Error(`probe did not complete on the CPU host: ${r.stderr.toString().slice(-500)}`);
  return cpuMs(r.stderr.toString());
}

async function scriptCpu(client: Client, script: string): Promise<number> {
  const r = await exec(client, MEASURED, { stdin: `${script}\n`, timeoutMs: 120_000, maxBytes: 1 << 28 });
  if (r.exitCode === null) throw new Error(`the plain commands did not complete on the CPU host: ${r.stderr.toString().slice(-500)}`);
  return cpuMs(r.stderr.toString());
}

export interface CpuSamples {
  readonly probe: number[];
  /** The commands in a row: the target's baseline. */
  readonly plain: number[];
  /** The commands all at once, hand-written: what running them in parallel costs by itself (contention). */
  readonly parallel: number[];
}

/** `rounds` runs of each side, in rotation, after one unmeasured run of each. */
export async function measureHostCpu(client: Client, rounds: number): Promise<CpuSamples> {
  const s: CpuSamples = { probe: [], plain: [], parallel: [] };
  const sides: [number[], () => Promise<number>][] = [
    [s.probe, () => probeCpu(client)],
    [s.plain, () => scriptCpu(client, sequentialCommand(PROBE_COMMANDS))],
    [s.parallel, () => scriptCpu(client, parallelCommand(PROBE_COMMANDS))],
  ];
  for (const [, run] of sides) await run();
  for (let i = 0; i < rounds; i++)
    await inRotation(
      i,
      sides.map(
        ([into, run]) =>
          async () =>
            void into.push(await run()),
      ),
    );
  return s;
}
