// Quick fixes (docs/peer-memory.md §5, docs/platform.md §3): load-peermem, persist-peermem, disable-acs
// and persist-acs, each a plan first (exact commands and file diff), then applied with the least
// privilege that works and verified from the host.
export type {
  AcsBridge,
  AcsPlan,
  FileChange,
  FixId,
  FixPlan,
  FixResult,
  FixStatus,
  FixStep,
  PeermemModule,
  PlanStatus,
  Privilege,
  StepOutcome,
} from './types';
export { FIX_IDS, isFixId } from './types';
export { planFix } from './plan';
export type { PlanInput } from './plan';
export { applyFix } from './apply';
export type { ApplyOptions } from './apply';
export { newSudoMarker, prepareFix, readPersistState, readUnitState, runPlan, sshFixSession, sudoPasswordVia } from './session';
export type { FixOptions, FixSession, RunOptions } from './session';
export type { RemoteShell, ShellResult } from './shell';
export { parsePersistState } from './persistState';
export type { FileState, PersistState } from './persistState';
export { appendAudit, auditEntry, auditLogPath } from './auditLog';
export type { AuditEntry } from './auditLog';
export { formatPlan, formatResult } from './text';
