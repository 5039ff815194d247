// A Kubernetes node, reached as its admins reach it: through their kubectl. The probe script goes on
// stdin to `kubectl exec -i` into the GPU Operator's driver pod on that node (`nvidia-driver-ctr`, a
// privileged pod in the host's PID namespace), which enters the host's namespaces with
// `nsenter -t 1 -m -u -i -n -p -- sh -s`, so every host tool and file is seen as over SSH. Where no such
// pod runs and the user allows it: `kubectl debug node/<n> --profile=sysadmin --image=<theirs> --
// chroot /host sh -s`, the debug pod deleted afterwards. Stopping the probe (deadline, cancel) kills
// kubectl's process group (localScript.ts); kubectl's own error text is what a failed node reports.
import { ConnectError } from '../ssh/errors';
import { ProbeRunner, RunnerOutput, runProbe } from '../probe/runProbe';
import type { ProbeCommandSpec } from '../probe/commands';
import { KubeAccess, kubectlArgv, kubectlErrorText, runKubectl } from './kubectl';
import { localRunner } from './local';
import { t } from '../l10n';
import type { ProbedHost } from './ssh';

export const DRIVER_CONTAINER = 'nvidia-driver-ctr';
/** From inside the driver container into the host's mount, UTS, IPC, network and PID namespaces. */
export const HOST_SHELL = ['nsenter', '-t', '1', '-m', '-u', '-i', '-n', '-p', '--', 'sh', '-s'];
/** A node debug pod mounts the node's root at /host (kubectl debug's node profile). */
export const DEBUG_SHELL = ['chroot', '/host', 'sh', '-s'];

/** Which pod carries the probe onto the node. */
export type KubeRoute =
  { readonly via: 'driver-pod'; readonly namespace: string; readonly pod: string } | { readonly via: 'debug-pod'; readonly image: string };

/** kubectl's arguments (after the global flags) that run `sh -s` on the node's host. */
export function kubeProbeArgs(node: string, route: KubeRoute): string[] {
  if (route.via === 'driver-pod') return ['exec', '-i', '-n', route.namespace, route.pod, '-c', DRIVER_CONTAINER, '--', ...HOST_SHELL];
  return ['debug', `node/${node}`, '-i', '--profile=sysadmin', `--image=${route.image}`, '--', ...DEBUG_SHELL];
}

export interface KubeProbeOptions {
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
  readonly commands?: readonly ProbeCommandSpec[];
  readonly boundary?: string;
}

/** The node probed; rejects with a ConnectError (step `kubectl`, kubectl's own words) when kubectl could not run the probe at all. */
export async function probeKubeNode(
  node: string,
  access: KubeAccess,
  route: KubeRoute,
  options: KubeProbeOptions = {},
): Promise<ProbedHost> {
  let out: RunnerOutput | undefined;
  const runner = localRunner({ argv: kubectlArgv(access, kubeProbeArgs(node, route)), env: access.env, signal: options.signal });
  const kept: ProbeRunner = async (script, request) => (out = await runner(script, request));
  const report = await runProbe(kept, {
    host: node,
    deadlineMs: options.deadlineMs,
    commands: options.commands,
    boundary: options.boundary,
  });
  const stderr = out?.stderr.toString('utf8') ?? '';
  // kubectl debug names its pod on stdout, before the probe's first frame.
  const said = `${out?.stdout.subarray(0, 4096).toString('utf8') ?? ''}\n${stderr}`;
  const cleanup = route.via === 'debug-pod' ? await deleteDebugPod(access, said) : undefined;
  const nothing = report.commands.length === 0 && !report.finished && !report.timedOut && options.signal?.aborted !== true;
  if (nothing && out && out.exitCode !== 0)
    throw new ConnectError(node, 'kubectl', [kubectlErrorText(stderr, out.exitCode), cleanup].filter(Boolean).join('\n'));
  return { report: cleanup ? { ...report, notes: [...report.notes, cleanup] } : report };
}

/** Deletes the pod `kubectl debug` said it created ("Creating debugging pod <name> with container …"); says how it went. */
async function deleteDebugPod(access: KubeAccess, said: string): Promise<string | undefined> {
  const name = /Creating debugging pod (\S+) with container/.exec(said)?.[1];
  if (name === undefined) return undefined;
  const r = await runKubectl(access, ['delete', 'pod', name, '--wait=false'], { timeoutMs: 30_000 }).catch((e: Error) => ({
    code: null,
    stderr: e.message,
    timedOut: false,
  }));
  return r.code === 0
    ? t('debug pod {0} deleted', name)
    : t('debug pod {0} could not be deleted (kubectl delete pod {0}): {1}', name, kubectlErrorText(r.stderr, r.code));
}
