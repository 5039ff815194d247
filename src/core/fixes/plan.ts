// Fix plans: from a probe of the host (and, for persist-peermem, a reading of its boot module
// files) to the exact commands and file diff a fix would run, or the reason it will not. Pure:
// nothing runs here, so a plan can be shown, printed with --dry-run, and only then applied.
// The ACS fixes are planned in acsPlan.ts.
import { Finding, FixId, diagnose } from '../diagnosis';
import { RuleContext, ruleContext } from '../diagnosis/context';
import { Parsed } from '../parsers/result';
import { ProbeReport } from '../probe/runProbe';
import { planAcs } from './acsPlan';
import { planTimer } from './timerPlan';
import type { TimerState } from './timerScripts';
import { unifiedDiff } from './diff';
import { PersistState, linesNaming } from './persistState';
import {
  Refusal,
  cannotLoad,
  contentAfter,
  isRefusal,
  loadedModule,
  moduleToLoad,
  persistTarget,
  privilegeFor,
  privilegeText,
} from './planChecks';
import { CONF_HEADER, MODULE_CONSTANTS, disableLegacyServiceScript, loadScript, persistScript, privilegedCommand } from './scripts';
import { FixPlan, FixStep, PeermemModule, Privilege } from './types';
import { t } from '../l10n';

export interface PlanInput {
  readonly fixId: FixId;
  /** The destination as the user gave it. */
  readonly host: string;
  /** The login user on the host. */
  readonly user: string;
  readonly report: ProbeReport;
  /** READ_STATE_SCRIPT's output, read; persist-peermem needs it. */
  readonly persistState?: Parsed<PersistState>;
  /** READ_UNIT_COMMAND's output, read; persist-acs needs it. */
  readonly unitState?: Parsed<PersistState>;
  /** READ_TIMER_COMMAND's output, read; export-timer needs it. */
  readonly timerState?: Parsed<TimerState>;
  /** sudo's prompt marker (random per run) for `sudo -S -p`. */
  readonly sudoMarker: string;
  /** Go on although processes hold the GPUs or RDMA devices (disable-acs; --force, or yes when asked). */
  readonly force?: boolean;
}

const LOAD_TIMEOUT_MS = 60_000;
const PERSIST_TIMEOUT_MS = 30_000;

type Base = Omit<FixPlan, 'status' | 'summary'>;

export function planFix(input: PlanInput): FixPlan {
  const ctx = ruleContext(input.report);
  const { findings, pairs } = diagnose(input.report);
  const base: Base = {
    fixId: input.fixId,
    host: input.host,
    user: input.user,
    module: null,
    privilege: null,
    steps: [],
    fileChange: null,
    notes: [],
    findings: [],
    dmabufAvailable: ctx.dmabuf.available === true,
  };
  const r = input.report;
  if (r.connectionLost || r.timedOut || !r.finished) {
    const why = r.connectionLost ? t('connection lost') : r.timedOut ? t('timed out') : t('cut off');
    return refused(base, {
      refused: t('The probe of {0} did not finish ({1}): its state is unknown, so nothing is planned.', input.host, why),
    });
  }
  if (input.fixId === 'disable-acs' || input.fixId === 'persist-acs')
    return planAcs({ ...input, fixId: input.fixId }, base, findings, pairs);
  if (input.fixId === 'export-timer') return planTimer(input, base);
  if (ctx.host.operatorManaged) {
    return refused(base, {
      refused: t(
        'The NVIDIA GPU Operator owns the driver here (/run/nvidia/driver): it loads nvidia-peermem itself (ClusterPolicy driver.rdma.enabled=true). gdr-doctor does not load or persist it on the host.',
      ),
      findings: findings.filter((f) => f.id === 'driver.operator-managed'),
    });
  }
  const loaded = loadedModule(ctx.host.peermem);
  if (loaded === undefined)
    return refused(base, {
      refused: t('Neither lsmod nor /sys/module could be read: whether a peer-memory module is loaded is unknown, so nothing is planned.'),
    });
  return input.fixId === 'load-peermem' ? planLoad(input, ctx, findings, base, loaded) : planPersist(input, ctx, findings, base, loaded);
}

function planLoad(input: PlanInput, ctx: RuleContext, findings: Finding[], base: Base, loaded: PeermemModule | null): FixPlan {
  if (loaded !== null) {
    const registered = ctx.host.peermem.registered ?? [];
    const notes =
      registered.length > 0
        ? []
        : [
            t(
              '{0} is loaded but no /sys/kernel/mm/memory_peers/nv_mem*/version exists: it is not registered (see peermem.not-registered).',
              loaded,
            ),
          ];
    return { ...base, module: loaded, notes, status: 'nothing-to-do', summary: t('{0} is already loaded: nothing to do.', loaded) };
  }
  const module = moduleToLoad(ctx.host.peermem);
  const blocked = cannotLoad(ctx, findings);
  if (blocked) return refused({ ...base, module }, blocked);
  const privilege = privilegeFor(input.report, input.user, input.host);
  if (isRefusal(privilege)) return refused({ ...base, module }, privilege);
  return {
    ...base,
    module,
    privilege,
    status: 'ready',
    steps: [loadStep(module, privilege, input.sudoMarker)],
    notes: loadNotes(ctx, module),
    summary: t(
      'Load {0} now with modprobe, {1}; then probe again to check that it is listed and registered (/sys/kernel/mm/memory_peers/nv_mem*/version). This does not survive a reboot: persist-peermem does.',
      module,
      privilegeText(privilege, input.user),
    ),
  };
}

function loadNotes(ctx: RuleContext, module: PeermemModule, serviceHandled = false): string[] {
  const p = ctx.host.peermem;
  return [
    ...(ctx.dmabuf.available === true
      ? [t('dma-buf meets its prerequisites here: NCCL can use GPUDirect RDMA without a peer-memory module.')]
      : []),
    ...(module === 'nvidia_peermem' && p.legacyServiceEnabled === true && !serviceHandled
      ? [t('The legacy nv_peer_mem service is enabled: disable it, only one peer-memory module may be loaded.')]
      : []),
    ...(p.newExists === null && p.legacyExists === null
      ? [t('modinfo could not confirm the module file; it is assumed from the driver branch.')]
      : []),
  ];
}

function planPersist(input: PlanInput, ctx: RuleContext, findings: Finding[], base: Base, loaded: PeermemModule | null): FixPlan {
  const module = loaded ?? moduleToLoad(ctx.host.peermem);
  const withModule = { ...base, module };
  const line = MODULE_CONSTANTS[module].line;
  const persisted = module === 'nvidia_peermem' ? ctx.host.peermem.persistedBy?.new : ctx.host.peermem.persistedBy?.legacy;
  const notLoadedNote = loaded === null ? [t('{0} is not loaded now: load-peermem loads it.', module)] : [];
  const nothingToDo = (summary: string): FixPlan => ({ ...withModule, notes: notLoadedNote, status: 'nothing-to-do', summary });
  if (persisted && persisted.length > 0)
    return nothingToDo(t('{0} is already loaded at boot by {1}: nothing to do.', line, persisted.join(', ')));
  // Never persist what cannot load: a boot-time modprobe failure would only hide the problem.
  const blocked = loaded === null ? cannotLoad(ctx, findings) : null;
  if (blocked) return refused(withModule, { ...blocked, refused: `${blocked.refused} ${t('It is not persisted.')}` });
  if (!input.persistState?.ok) {
    const why = input.persistState ? input.persistState.error.message : t('not read');
    return refused(withModule, {
      refused: t('Could not read /etc/modules-load.d and /etc/modules ({0}): no change can be shown, so none is made.', why),
    });
  }
  const target = persistTarget(input.persistState.value, module);
  if (isRefusal(target)) return refused(withModule, target);
  const naming = target.before === null ? [] : linesNaming(target.before, module);
  if (naming.length > 0) return nothingToDo(t('{0} already names {1} (line {2}): nothing to do.', target.path, line, naming.join(', ')));
  const privilege = privilegeFor(input.report, input.user, input.host);
  if (isRefusal(privilege)) return refused(withModule, privilege);
  const after = contentAfter(target.before, module, target.target, CONF_HEADER);
  const persist: FixStep = {
    kind: 'persist',
    title: t('add the line "{0}" to {1} (temp file in the same directory, then rename)', line, target.path),
    command: privilegedCommand(persistScript(module, target.target), privilege, input.sudoMarker),
    timeoutMs: PERSIST_TIMEOUT_MS,
  };
  // The legacy service would load nv_peer_mem at boot beside it (peermem.conflict): disabled in the same plan.
  const legacyService = module === 'nvidia_peermem' && ctx.host.peermem.legacyServiceEnabled === true;
  const disableService: FixStep[] = legacyService
    ? [
        {
          kind: 'persist',
          title: t('disable the legacy nv_peer_mem service (systemctl disable nv_peer_mem.service): it would load nv_peer_mem at boot too'),
          command: privilegedCommand(disableLegacyServiceScript(), privilege, input.sudoMarker),
          timeoutMs: PERSIST_TIMEOUT_MS,
        },
      ]
    : [];
  return {
    ...withModule,
    privilege,
    status: 'ready',
    steps: [...(loaded === null ? [loadStep(module, privilege, input.sudoMarker)] : []), persist, ...disableService],
    fileChange: { path: target.path, before: target.before, after, diff: unifiedDiff(target.path, target.before, after) },
    notes: [
      ...(loaded === null ? loadNotes(ctx, module, legacyService) : []),
      ...(legacyService
        ? [
            t(
              'nv_peer_mem.service is enabled: the plan disables it, so only nvidia_peermem loads at boot (only one peer-memory module may be loaded).',
            ),
          ]
        : []),
    ],
    summary:
      loaded === null
        ? t(
            'Load {0} first (it must load before it is persisted), then add "{1}" to {2} so it loads at boot, {3}; then read the file back.',
            module,
            line,
            target.path,
            privilegeText(privilege, input.user),
          )
        : t('Add "{0}" to {1} so it loads at boot, {2}; then read the file back.', line, target.path, privilegeText(privilege, input.user)),
  };
}

function loadStep(module: PeermemModule, privilege: Privilege, marker: string): FixStep {
  return {
    kind: 'load',
    title: t('load {0} (modprobe {0})', module),
    command: privilegedCommand(loadScript(module), privilege, marker),
    timeoutMs: LOAD_TIMEOUT_MS,
  };
}

function refused(base: Base, r: Refusal): FixPlan {
  return { ...base, status: 'refused', summary: r.refused, findings: r.findings ?? [] };
}
