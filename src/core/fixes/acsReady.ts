// What the ACS plans share: their input, a refused plan, and a one-step plan ready to run.
import { Parsed } from '../parsers/result';
import { ProbeReport } from '../probe/runProbe';
import { PersistState } from './persistState';
import { Refusal } from './planChecks';
import { privilegedCommand } from './scripts';
import { FixPlan, FixStep, Privilege } from './types';
import { t } from '../l10n';

export type Base = Omit<FixPlan, 'status' | 'summary'>;

export interface AcsPlanInput {
  readonly fixId: 'disable-acs' | 'persist-acs';
  readonly host: string;
  readonly user: string;
  readonly report: ProbeReport;
  /** READ_UNIT_COMMAND's output, read; persist-acs needs it. */
  readonly unitState?: Parsed<PersistState>;
  readonly sudoMarker: string;
  /** Go on although processes hold the GPUs or RDMA devices (--force, or yes when asked). */
  readonly force?: boolean;
}

const TIMEOUT_MS = 30_000;

export interface ReadyParts {
  readonly step: { readonly kind: FixStep['kind']; readonly title: string; readonly script: string };
  readonly notes: string[];
  readonly summary: string;
  readonly fileChange?: FixPlan['fileChange'];
  readonly otherFileChanges?: FixPlan['fileChange'][];
}

/** A one-step plan ready to run under `privilege`: its notes end with how to undo it. */
export function readyPlan(
  input: AcsPlanInput,
  base: Base,
  acs: NonNullable<FixPlan['acs']>,
  privilege: Privilege,
  parts: ReadyParts,
): FixPlan {
  const { kind, title, script } = parts.step;
  const step: FixStep = { kind, title, command: privilegedCommand(script, privilege, input.sudoMarker), timeoutMs: TIMEOUT_MS };
  return {
    ...base,
    privilege,
    acs,
    steps: [step],
    status: 'ready',
    ...(parts.fileChange ? { fileChange: parts.fileChange } : {}),
    ...(parts.otherFileChanges && parts.otherFileChanges.length > 0
      ? { otherFileChanges: parts.otherFileChanges.filter((c) => c !== null) }
      : {}),
    notes: [...parts.notes, ...acs.undo.map((u) => t('Undo: {0}', u))],
    summary: parts.summary,
  };
}

export function refused(base: Base, r: Refusal): FixPlan {
  return { ...base, status: 'refused', summary: r.refused, findings: r.findings ?? [] };
}
