// One measurement's result from what its two sides printed: the bandwidth from the client's own
// report line (the server prints the client's numbers under its own unit: docs/perftest.md §2),
// against the slower port's line rate, or perftest's own error line when it failed.
import { parsePerftest, PerftestRun } from '../parsers/perftest';
import { Measurement } from './plan';
import { ModeOutcome, RoleRun } from './types';
import { t } from '../l10n';

export interface SideRuns {
  readonly server: RoleRun | null;
  readonly client: RoleRun | null;
  /** The server took no port: every candidate was in use. */
  readonly noPort?: boolean;
  /** Stopped before both sides ended. */
  readonly stopped?: 'timed-out' | 'cancelled';
  /** The client's command line as it ran. */
  readonly command: string | null;
}

export function modeOutcome(m: Measurement, runs: SideRuns, explain: (failed: boolean) => string[]): ModeOutcome {
  const lineRate = slower(m.client.lineRateGbps, m.server.lineRateGbps);
  const client = read(runs.client);
  const server = read(runs.server);
  const base = { mode: m.mode, lineRateGbps: lineRate, command: runs.command, client: runs.client, server: runs.server };
  const gbps = client?.averageGbps ?? null;
  const firstError = client?.errors[0]?.text ?? server?.errors[0]?.text ?? null;
  const clean = runs.client?.exitCode === 0 && gbps !== null && firstError === null && (runs.server === null || runs.server.exitCode === 0);
  const wrongGpu = m.mode === 'host' ? null : (otherGpu(client, m.client) ?? otherGpu(server, m.server));
  if (clean && wrongGpu !== null) return { ...base, status: 'failed', gbps, ratio: null, reason: wrongGpu, explainedBy: [] };
  if (clean)
    return {
      ...base,
      status: 'ok',
      gbps,
      ratio: lineRate === null ? null : Math.round((gbps / lineRate) * 100) / 100,
      reason: null,
      explainedBy: [],
    };
  // 124: `timeout` stopped the side at its deadline; 137: it had to KILL it (`-k 2`).
  const stopped =
    runs.stopped ?? ([runs.client, runs.server].some((r) => r?.exitCode === 124 || r?.exitCode === 137) ? 'timed-out' : undefined);
  if (stopped) {
    const why = stopped === 'cancelled' ? t('cancelled while it ran') : t('stopped at its deadline ({0} s per side)', m.limitS);
    return {
      ...base,
      status: stopped,
      gbps: null,
      ratio: null,
      reason: firstError ? t('{0}; perftest said: {1}', why, firstError) : why,
      explainedBy: [],
    };
  }
  return { ...base, status: 'failed', gbps: null, ratio: null, reason: failure(runs, firstError), explainedBy: explain(true) };
}

/**
 * perftest's own listing names the GPU it picked (`CUDA device 3: PCIe address is 5D:00`, bus and device
 * number): a different one than the endpoint's GPU means the measurement was of another GPU (CUDA numbers
 * follow CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES). Null when it matches or perftest printed no address.
 */
function otherGpu(run: PerftestRun | null, e: Measurement['client']): string | null {
  const shown = run?.cuda?.pcieAddress ?? null;
  const meant = e.gpuBusId ? e.gpuBusId.slice(5, 10).toUpperCase() : null;
  if (shown === null || meant === null || shown === meant) return null;
  return t(
    'perftest on {0} used the GPU at PCIe {1} (its own "PCIe address" line), not {2} at {3}: CUDA device numbers follow CUDA_DEVICE_ORDER and CUDA_VISIBLE_DEVICES, so this measured another GPU',
    e.host,
    shown,
    e.gpu,
    e.gpuBusId ?? '',
  );
}

function read(run: RoleRun | null): PerftestRun | null {
  if (!run) return null;
  const parsed = parsePerftest(run.output);
  return parsed.ok ? parsed.value : null;
}

function failure(runs: SideRuns, firstError: string | null): string {
  if (firstError) return firstError;
  if (runs.noPort) return t("no free TCP port for perftest's out-of-band connection on the server");
  if (!runs.client && runs.server)
    return t('the server ended before the client could connect (exit {0}): {1}', runs.server.exitCode ?? '?', lastLine(runs.server.output));
  if (!runs.client) return t('the client did not run');
  if (runs.client.exitCode !== 0)
    return t('exit {0} without an error line: {1}', runs.client.exitCode ?? '?', lastLine(runs.client.output));
  return t('perftest printed no report line');
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines[lines.length - 1] ?? '(nothing printed)';
}

function slower(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}
