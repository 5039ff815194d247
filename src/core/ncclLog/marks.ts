// The lines of an NCCL log worth a mark in an editor (the Problems panel): each HCA and GPU/HCA pair
// NCCL refused GPU Direct RDMA, the Socket fallback, every WARN, the settings and plugin messages that
// turn GDR off, and per GPU its first network connection without /GDRDMA. Marks are located
// (line, columns) and worded by editorText.ts; the CLI's summary and the marks read the same records.
import type { NcclLogLine, NcclMessage } from '../parsers/ncclLogTypes';
import { MARK_TEXT } from './editorText';
import { marksByCause } from './markCauses';
import type { MarkText, NcclLogMark, NcclLogMarkAt } from './markTypes';
import { envReason } from './reasons';
import type { NcclLogRef, NcclLogSummary } from './types';

export type { MarkKind, MarkSeverity, MarkText, NcclLogMark, NcclLogMarkAt, NcclLogRelatedLine } from './markTypes';

/** Marks kept per log; beyond that they are counted (a 1,024-rank job repeats each line per rank). */
export const MAX_MARKS = 1000;

export class MarkCollector {
  private readonly marks: NcclLogMarkAt[] = [];
  /** Marks not kept, beyond MAX_MARKS. */
  dropped = 0;

  /** One NCCL message, with the whole line it is on. */
  add(line: NcclLogLine, text: string): void {
    const found = lineMark(line.message);
    if (found) this.push(found, line.line, line.column, text.trimEnd().length);
  }

  /**
   * One entry per cause, in line order, with what only the whole log can give: each GPU's first network
   * connection without /GDRDMA (with its counts), and the Socket lines reworded where the log lists RDMA devices.
   */
  finish(summary: NcclLogSummary): NcclLogMark[] {
    for (const host of summary.hosts) {
      for (const gpu of host.gpus) {
        if (gpu.firstWithoutGdrdma === null) continue;
        const message = MARK_TEXT.netWithoutGdrdma(host.name, gpu.dev, gpu.netConnections, host.network === 'Socket');
        this.pushRef({ kind: 'net-without-gdrdma', severity: 'warning', message }, gpu.firstWithoutGdrdma);
      }
    }
    const located = [...this.marks].sort((a, b) => a.line - b.line || a.start - b.start);
    const entries = marksByCause(located, summary);
    return rewordSocketMarks(
      entries,
      summary.hcas.filter((h) => h.net !== 'Socket').map((h) => h.name),
    ).sort((a, b) => a.line - b.line || a.start - b.start);
  }

  private pushRef(found: MarkText, ref: NcclLogRef): void {
    this.push(found, ref.line, ref.column, ref.column + ref.text.length);
  }

  private push(found: MarkText, line: number, start: number, end: number): void {
    if (this.marks.length >= MAX_MARKS) {
      this.dropped++;
      return;
    }
    this.marks.push({ ...found, line, start, end: Math.max(end, start) });
  }
}

/** On line 1: the reading stopped after `readChars` (`lines` lines), so no line past that is marked. */
export function readLimitMark(readChars: number, lines: number): NcclLogMark {
  return {
    kind: 'read-limit',
    severity: 'info',
    message: MARK_TEXT.stoppedEarly(readChars, lines),
    line: 1,
    start: 0,
    end: 0,
    related: [],
    relatedDropped: 0,
  };
}

/** "Using network Socket" marks, said again where RDMA devices are known to exist (listed in the log, or on the host it ran on). */
export function rewordSocketMarks(marks: readonly NcclLogMark[], rdmaDevices: readonly string[]): NcclLogMark[] {
  if (rdmaDevices.length === 0) return [...marks];
  const reworded = MARK_TEXT.socketWithRdma(rdmaDevices);
  return marks.map((m) => (m.kind === 'socket' ? { ...m, message: m.message.replace(MARK_TEXT.socket(), reworded) } : m));
}

function lineMark(m: NcclMessage): MarkText | null {
  switch (m.kind) {
    case 'hca-gdr':
      return m.enabled || m.net === 'Socket'
        ? null
        : { kind: 'hca-gdr-disabled', severity: 'warning', message: MARK_TEXT.hcaDisabled(m.name, m.reason) };
    case 'pair-gdr':
      return m.enabled
        ? null
        : { kind: 'pair-gdr-disabled', severity: 'warning', message: MARK_TEXT.pairDisabled(m.gpu, m.hca, m.distance, m.threshold) };
    case 'network':
      return m.name === 'Socket' ? { kind: 'socket', severity: 'warning', message: MARK_TEXT.socket() } : null;
    case 'net-devices':
      return !m.found && m.net !== 'Socket'
        ? { kind: 'no-rdma-device', severity: 'warning', message: MARK_TEXT.noRdmaDevice(m.net) }
        : null;
    case 'env': {
      const reason = envReason(m.name, m.value);
      return reason === null ? null : { kind: 'env-gdr-off', severity: 'info', message: reason };
    }
    case 'gdr-off':
      return { kind: 'plugin-gdr-off', severity: 'warning', message: MARK_TEXT.pluginGdrOff() };
    case 'rings-connected':
      return m.gdr === false ? { kind: 'rings-gdr-off', severity: 'info', message: MARK_TEXT.ringsGdrOff() } : null;
    case 'warn':
      return { kind: 'warn', severity: 'warning', message: MARK_TEXT.warn(m.text) };
    default:
      return null;
  }
}
