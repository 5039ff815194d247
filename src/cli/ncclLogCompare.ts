// `gdr-doctor nccl-log FILE... --host DEST` (or --demo, --local, --from DIR): after reading the log,
// diagnose the host as `gdr-doctor diagnose` does and compare what gdr-doctor predicts per GPU with
// what the log shows NCCL did. The log host compared is the one DEST names, the only one, or --log-host.
import { readNcclAssumptions } from '../core/diagnosis';
import { compareNcclLogWithHost, logHostsMatching } from '../core/ncclLog/compare';
import type { NcclHostComparison } from '../core/ncclLog/compareTypes';
import type { NcclLogSummary } from '../core/ncclLog/types';
import { hostName, probeHost } from '../core/transport';
import { ParsedArgs, UsageError } from './args';
import { checkDestination, hostSource } from './diagnoseCommand';
import { secondsOption } from './fleetArgs';
import { FLEET_INCOMPLETE } from './fleetOutput';
import { CliIo } from './io';
import { cliPrompts } from './terminalPrompts';
import { t } from '../core/l10n';
import { cannotReachLine } from './unreachable';

export const COMPARE_FLAGS = ['--demo', '--local', '--batch'];
export const COMPARE_OPTIONS = ['--host', '--from', '--log-host', '-F', '--timeout', '--nccl', '--nccl-env'];
/** Options that only mean something with a host to compare with. */
const HOST_ONLY = ['--log-host', '-F', '--timeout', '--nccl', '--nccl-env'];

/** Whether the command line asks for a comparison; usage errors for options without a host. */
export function wantsComparison(args: ParsedArgs): boolean {
  const modes = [args.options.has('--host'), args.flags.has('--demo'), args.flags.has('--local'), args.options.has('--from')].filter(
    Boolean,
  ).length;
  if (modes > 1) throw new UsageError(t('compare with one host: --host DEST, --demo, --local or --from DIR'));
  const misplaced = [...HOST_ONLY.filter((o) => args.options.has(o)), ...(args.flags.has('--batch') ? ['--batch'] : [])][0];
  if (modes === 0 && misplaced !== undefined)
    throw new UsageError(t('{0} goes with --host DEST (or --demo, --local, --from DIR)', misplaced));
  const host = args.options.get('--host');
  if (host !== undefined) checkDestination(host);
  return modes === 1;
}

export type Compared = { kind: 'compared'; comparison: NcclHostComparison } | { kind: 'unreachable'; code: number };

/** Diagnoses the host and compares it with the log; what went wrong is on stderr. */
export async function compareWithHost(summary: NcclLogSummary, args: ParsedArgs, io: CliIo): Promise<Compared> {
  const nccl = readNcclAssumptions(args.options.get('--nccl'), args.lists.get('--nccl-env') ?? []);
  if (typeof nccl === 'string') throw new UsageError(nccl);
  const destination = args.options.get('--host');
  const logHost = pickLogHost(summary, args.options.get('--log-host'), destination);
  const prompts = cliPrompts({ batch: args.flags.has('--batch'), notice: io.stderr });
  const source = hostSource(destination, args.flags, args.options, { prompts, configFile: args.options.get('-F') });
  const host = hostName(source);
  try {
    const { report } = await probeHost(source, { deadlineMs: secondsOption(args.options, '--timeout') });
    return { kind: 'compared', comparison: compareNcclLogWithHost({ summary, logHost, host, report, nccl }) };
  } catch (e) {
    io.stderr(cannotReachLine(host, e));
    return { kind: 'unreachable', code: FLEET_INCOMPLETE };
  } finally {
    prompts.close();
  }
}

/** --log-host, else the log host DEST names, else the log's only host; a usage error names the choices. */
function pickLogHost(summary: NcclLogSummary, asked: string | undefined, destination: string | undefined): string {
  const names = summary.hosts.map((h) => h.name);
  if (asked !== undefined) {
    if (!names.includes(asked))
      throw new UsageError(`--log-host: ${t('the log has no host {0}; it has {1}', JSON.stringify(asked), names.join(', ') || t('none'))}`);
    return asked;
  }
  const matching = destination === undefined ? [] : logHostsMatching(summary, [destination]);
  if (matching.length === 1) return matching[0];
  if (names.length === 1) return names[0];
  if (names.length === 0) throw new UsageError(t('the log names no host to compare'));
  throw new UsageError(t('the log has {0} hosts ({1}): say which ran on the host with --log-host NAME', names.length, names.join(', ')));
}
