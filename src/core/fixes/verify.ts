// After a fix ran, the host is asked again rather than trusting an exit status: a load is verified by
// a fresh probe (the module listed by lsmod or /sys/module, and registered as a peer-memory client,
// which is what NCCL checks), a persist by reading the file back.
import { readHostState } from '../diagnosis/hostState';
import { Parsed } from '../parsers/result';
import { ProbeReport } from '../probe/runProbe';
import { PersistState, linesNaming } from './persistState';
import { MODULE_CONSTANTS } from './scripts';
import { FixPlan } from './types';
import { errorText } from '../errorText';
import { t } from '../l10n';

export interface Verification {
  readonly ok: boolean;
  /** One sentence: what was found. */
  readonly message: string;
  /** What was looked at and what it showed. */
  readonly lines: string[];
}

export async function verifyLoad(plan: FixPlan, reprobe: () => Promise<ProbeReport>): Promise<Verification> {
  const module = plan.module ?? 'nvidia_peermem';
  let report: ProbeReport;
  try {
    report = await reprobe();
  } catch (e) {
    return { ok: false, message: t('modprobe {0} succeeded but the host could not be probed again to verify it: {1}', module, errorText(e)), lines: [] };
  }
  const p = readHostState(report).peermem;
  const listed = module === 'nvidia_peermem' ? p.newLoaded : p.legacyLoaded;
  const registered = p.registered ?? [];
  const lines = [
    `lsmod / /sys/module: ${listed === true ? t('{0} is loaded', module) : listed === false ? t('{0} is not listed', module) : t('could not be read')}`,
    `/sys/kernel/mm/memory_peers: ${registered.length > 0 ? t('registered {0}', registered.join(', ')) : t('no nv_mem*/version')}`,
  ];
  if (listed !== true) return { ok: false, message: t('modprobe {0} exited 0, but probing again does not show {0} loaded.', module), lines };
  if (registered.length === 0) {
    return { ok: false, message: t('{0} is loaded but did not register as a peer-memory client (no /sys/kernel/mm/memory_peers/nv_mem*/version): NCCL will not use GPUDirect RDMA (peermem.not-registered).', module), lines };
  }
  return { ok: true, message: t('{0} is loaded and registered ({1}).', module, registered.join(', ')), lines };
}

export async function verifyPersist(plan: FixPlan, reread: () => Promise<Parsed<PersistState>>): Promise<Verification> {
  const module = plan.module ?? 'nvidia_peermem';
  const path = plan.fileChange?.path ?? MODULE_CONSTANTS[module].confFile;
  const line = MODULE_CONSTANTS[module].line;
  const state = await reread().catch((e: unknown) => ({ ok: false as const, error: { line: 0, message: errorText(e) } }));
  if (!state.ok) return { ok: false, message: t('{0} was written but could not be read back to verify it: {1}', path, state.error.message), lines: [] };
  const file = state.value.files[path];
  if (file?.kind !== 'regular') return { ok: false, message: file ? t('{0} was written but reading it back finds a {1}.', path, file.kind) : t('{0} was written but reading it back finds nothing.', path), lines: [] };
  const naming = linesNaming(file.content, module);
  const lines = [`${path}: ${naming.length === 0 ? t('no line names {0}', line) : t('line {0} names {1}', naming.join(', '), line)}`];
  if (naming.length === 0) return { ok: false, message: t('Reading {0} back finds no line naming {1}.', path, line), lines };
  if (plan.fileChange && file.content !== plan.fileChange.after) lines.push(t('{0} differs from the planned content: it changed while the fix ran', path));
  return { ok: true, message: t('{0} names {1}: {2} loads at boot.', path, line, module), lines };
}
