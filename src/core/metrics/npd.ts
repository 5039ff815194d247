// Node Problem Detector's custom-plugin contract (kubernetes/node-problem-detector
// pkg/custompluginmonitor/plugin/plugin.go, Plugin.run; its custom_plugin_monitor.md): the exit
// status is the answer (0 OK, 1 a problem, anything else unknown) and stdout, trimmed and cut at the
// plugin config's max_output_length bytes (default 80, types/config.go defaultMaxOutputLength), is the
// condition's message. So: one line of printable ASCII, at most 80 bytes, naming the problem by
// finding ids (gdr-doctor's own words, never host text), the same in every locale.
import type { HostSnapshot } from '../watch/snapshot';

export const NPD_OK = 0;
export const NPD_PROBLEM = 1;
export const NPD_UNKNOWN = 2;

/** NPD's default max_output_length: longer output is cut there, mid-word. */
export const NPD_MAX_OUTPUT_BYTES = 80;

export interface NpdStatus {
  readonly exitCode: typeof NPD_OK | typeof NPD_PROBLEM | typeof NPD_UNKNOWN;
  readonly message: string;
}

/**
 * A problem: an error finding, or a GPU NCCL would not use GPUDirect RDMA for. Unknown (never OK): the
 * host was not diagnosed, the probe was cut off, no GPU was read, or a GPU's verdict rests on facts not
 * read. Warnings alone leave the condition OK (they are in the metrics and the report).
 */
export function npdStatus(s: HostSnapshot): NpdStatus {
  if (s.error !== null) return status(NPD_UNKNOWN, 'GPUDirect RDMA unknown: host not diagnosed');
  const gpus = s.gpus.length;
  const yes = s.gpus.filter((g) => g.gdr === true).length;
  const no = s.gpus.filter((g) => g.gdr === false).map((g) => g.gpu);
  const errors = s.findings.filter((f) => f.severity === 'error').map((f) => f.id);
  if (errors.length > 0 || no.length > 0) {
    // The count first, so NPD's cut never takes it; then the errors, else the warnings that say why GPUs go without.
    const count = gpus > 0 ? `GDR ${yes}/${gpus} GPUs` : 'no GPU read';
    const which = errors.length === 0 && no.length < gpus ? ` (no GDR: ${no.join(',')})` : '';
    const ids = errors.length > 0 ? errors : s.findings.filter((f) => f.severity === 'warning').map((f) => f.id);
    return status(NPD_PROBLEM, `GPUDirect RDMA problem: ${count}${which}${ids.length > 0 ? `; ${ids.join(', ')}` : ''}`);
  }
  if (!s.complete) return status(NPD_UNKNOWN, 'GPUDirect RDMA unknown: the probe was cut off');
  if (gpus === 0) return status(NPD_UNKNOWN, 'GPUDirect RDMA unknown: no GPU read');
  if (yes < gpus) return status(NPD_UNKNOWN, `GPUDirect RDMA unknown for ${gpus - yes}/${gpus} GPUs: facts not read`);
  return status(NPD_OK, `GPUDirect RDMA OK: GDR ${yes}/${gpus} GPUs`);
}

function status(exitCode: NpdStatus['exitCode'], message: string): NpdStatus {
  return { exitCode, message: boundedLine(message) };
}

/** Printable ASCII only, cut at NPD_MAX_OUTPUT_BYTES with `...` so a cut shows. */
export function boundedLine(text: string): string {
  const ascii = text.replace(/[^\x20-\x7e]/g, '?');
  return ascii.length <= NPD_MAX_OUTPUT_BYTES ? ascii : `${ascii.slice(0, NPD_MAX_OUTPUT_BYTES - 3)}...`;
}
