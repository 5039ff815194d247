// The shape of the NCCL log's Problems marks, apart from the code that makes them (marks.ts, markCauses.ts).

export type MarkSeverity = 'error' | 'warning' | 'info';

export type MarkKind =
  | 'hca-gdr-disabled'
  | 'pair-gdr-disabled'
  | 'socket'
  | 'no-rdma-device'
  | 'env-gdr-off'
  | 'plugin-gdr-off'
  | 'rings-gdr-off'
  | 'warn'
  | 'net-without-gdrdma'
  | 'read-limit';

export interface MarkText {
  readonly kind: MarkKind;
  readonly severity: MarkSeverity;
  readonly message: string;
}

/** One located line: 1-based line, 0-based columns [start, end). */
export interface NcclLogMarkAt extends MarkText {
  readonly line: number;
  readonly start: number;
  readonly end: number;
}

/** Another line of the same cause, shown as related information of its entry. */
export interface NcclLogRelatedLine {
  readonly line: number;
  readonly start: number;
  readonly end: number;
  readonly message: string;
}

/** One Problems entry per cause (markCauses.ts): on the line that shows it, the cause's other lines related. */
export interface NcclLogMark extends NcclLogMarkAt {
  readonly related: readonly NcclLogRelatedLine[];
  /** Related lines beyond MAX_RELATED, counted only. */
  readonly relatedDropped: number;
}
