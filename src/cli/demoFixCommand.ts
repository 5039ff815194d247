// `gdr-doctor fix --demo <fix-id>`: a quick fix on the demo host, simulated. The same plan, apply and
// verify code runs as on a real host (src/core/fixes/demo/demoFix.ts); the plan and the result say
// "simulated", and the host's findings after the fix show what changed. Nothing is asked (nothing
// runs anywhere), nothing goes to the audit log, and each run starts from the recordings.
import { Diagnosis, diagnose, shortVerdict } from '../core/diagnosis';
import { DEMO_HOST_SHORT_NAME, DemoHost } from '../core/transport';
import { demoFixSession, prepareDemoFix } from '../core/fixes/demo/demoFix';
import { FIX_IDS, formatPlan, formatResult, isFixId, newSudoMarker, runPlan } from '../core/fixes';
import { UsageError } from './args';
import { demoDir } from './demoDir';
import { formatFindings } from '../core/report/findingsText';
import { CliIo, ExitCode } from './io';
import { jsonText } from './visible';
import { t } from '../core/l10n';
import { unknownFixText } from './messages';

/** One line per GPU: the NIC NCCL gives it and whether it uses GPUDirect RDMA. */
function verdictLines(d: Diagnosis): string[] {
  return ['  GPUs:', ...d.pairs.map((p) => `    ${p.gpu}: ${p.nics[0]?.device ?? 'no NIC'} — ${shortVerdict(p)}`)];
}

/** Exit statuses as for a real host (fixCommand.ts FixExit): 0 applied or nothing to do, 1 failed, 4 refused. */
const EXIT = { failed: 1, refused: 4 } as const;

export async function runDemoFix(
  positional: readonly string[],
  flags: { readonly dryRun: boolean; readonly json: boolean },
  io: CliIo,
): Promise<number> {
  const [fixId, ...extra] = positional;
  if (fixId === undefined || extra.length > 0)
    throw new UsageError(t('with --demo, give one fix id ({0}) and no destination', FIX_IDS.join(t(' or '))));
  if (!isFixId(fixId)) throw new UsageError(unknownFixText(fixId));
  const session = demoFixSession(new DemoHost(demoDir()));
  const sudoMarker = newSudoMarker();
  const plan = await prepareDemoFix(session, fixId, sudoMarker);
  if (flags.dryRun || plan.status !== 'ready') {
    io.stdout(flags.json ? jsonText({ plan, result: null, after: null }) : `${formatPlan(plan)}\n`);
    return plan.status === 'refused' ? EXIT.refused : ExitCode.ok;
  }
  if (!flags.json) io.stdout(`${formatPlan(plan)}\n\n`);
  const result = await runPlan(plan, session, { sudoMarker, sudoPassword: async () => null });
  const after = diagnose(await session.probe());
  if (flags.json) io.stdout(jsonText({ plan, result, after: { findings: after.findings, pairs: after.pairs } }));
  else {
    const heading = t('{0} after {1} (simulated):', t('{0} (replayed)', DEMO_HOST_SHORT_NAME), fixId);
    const afterLines = [...formatFindings(after.findings), ...verdictLines(after)].join('\n');
    io.stdout(`${formatResult(result)}\n\n${heading}\n${afterLines}\n`);
  }
  return result.status === 'applied' || result.status === 'nothing-to-do'
    ? ExitCode.ok
    : result.status === 'refused'
      ? EXIT.refused
      : EXIT.failed;
}
