// The user's own kubectl, run as vscode-kubernetes-tools runs it: their binary, their kubeconfig and
// context (so cloud auth plugins keep working), never a token of ours, every argument its own argv
// element (node and pod names come from the cluster: no shell ever sees them). A failure carries
// kubectl's own words. Each run is bounded: a deadline, an abort signal, a cap on what is kept.
import { spawn } from 'node:child_process';
import { t } from '../l10n';

/** How to reach the cluster: all optional, as kubectl's own defaults (PATH, $KUBECONFIG, current context). */
export interface KubeAccess {
  /** The kubectl binary; default `kubectl` on PATH. */
  readonly kubectl?: string;
  /** `--kubeconfig FILE`. */
  readonly kubeconfig?: string;
  /** `--context NAME`. */
  readonly context?: string;
  /** Environment for kubectl; default this process's. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface KubectlRun {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** What kubectl said when it failed (its own text), or how it could not be started. */
export class KubectlError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
    readonly code: number | null,
  ) {
    super(message);
  }
}

/** kubectl's output kept at most (a list of every pod of a large cluster fits); beyond it the run fails, saying so. */
export const KUBECTL_MAX_BYTES = 64 * 1024 * 1024;
const STDERR_MAX_BYTES = 64 * 1024;
export const KUBECTL_TIMEOUT_MS = 60_000;

/** The argv after the binary: global flags first, then the command. */
export function kubectlArgv(access: KubeAccess, args: readonly string[]): string[] {
  return [
    access.kubectl ?? 'kubectl',
    ...(access.kubeconfig ? ['--kubeconfig', access.kubeconfig] : []),
    ...(access.context ? ['--context', access.context] : []),
    ...args,
  ];
}

export interface KubectlOptions {
  readonly stdin?: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly maxBytes?: number;
}

export function runKubectl(access: KubeAccess, args: readonly string[], options: KubectlOptions = {}): Promise<KubectlRun> {
  const [bin, ...argv] = kubectlArgv(access, args);
  const max = options.maxBytes ?? KUBECTL_MAX_BYTES;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new KubectlError(t('cancelled'), '', null));
    const child = spawn(bin, argv, { env: access.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let timedOut = false;
    let tooBig = false;
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs ?? KUBECTL_TIMEOUT_MS);
    options.signal?.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > max) {
        tooBig = true;
        kill();
      } else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < STDERR_MAX_BYTES) err += d.toString('utf8');
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
    const done = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', kill);
    };
    child.on('error', (e) => {
      done();
      reject(new KubectlError(t('cannot run {0}: {1}', bin, e.message), '', null));
    });
    child.on('close', (code) => {
      done();
      if (tooBig) return reject(new KubectlError(t('kubectl printed more than {0} bytes: stopped', max), err, code));
      if (options.signal?.aborted) return reject(new KubectlError(t('cancelled'), err, code));
      resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut });
    });
  });
}

/** kubectl's stdout when it succeeded; else a KubectlError with its own error text (or the deadline's). */
export async function kubectlOk(access: KubeAccess, args: readonly string[], options: KubectlOptions = {}): Promise<Buffer> {
  const r = await runKubectl(access, args, options);
  if (r.timedOut)
    throw new KubectlError(
      t('kubectl {0} did not answer within {1} s', args[0] ?? '', (options.timeoutMs ?? KUBECTL_TIMEOUT_MS) / 1000),
      r.stderr,
      r.code,
    );
  if (r.code !== 0) throw new KubectlError(kubectlErrorText(r.stderr, r.code), r.stderr, r.code);
  return r.stdout;
}

/**
 * kubectl's own error as it printed it: its `error: …` / `Error from server …` lines where it printed any
 * (client-go's klog lines before them repeat the same failure), else its last lines, else its exit status.
 */
export function kubectlErrorText(stderr: string, code: number | null): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
  const errors = lines.filter((l) => /^(error:|Error from server|Unable to connect|The connection to the server)/.test(l));
  const said = errors.length > 0 ? errors : lines;
  return said.length > 0 ? said.slice(-5).join('\n') : t('kubectl exited with status {0}', String(code));
}
