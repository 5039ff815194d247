// `gdr-doctor nccl-log FILE... [--json]`: what NCCL's own logs say it did. Each file streams
// through the reader a chunk at a time, so a log of any size is read in bounded memory; several
// files (one per rank or host) make one summary.
import { NcclLogSummarizer, noNcclLinesText } from '../core/ncclLog';
import { NcclLogReader } from '../core/parsers/ncclLog';
import { comparisonText } from '../core/ncclLog/compareReport';
import { summarizeNcclLogText } from '../core/ncclLog/summaryText';
import type { NcclLogSummary } from '../core/ncclLog/types';
import { parseArgs, ParsedArgs, UsageError } from './args';
import { CliIo, ExitCode } from './io';
import { COMPARE_FLAGS, COMPARE_OPTIONS, compareWithHost, wantsComparison } from './ncclLogCompare';
import { jsonText } from './visible';
import { cannotReadText } from './messages';
import { t } from '../core/l10n';

export const ncclLogHelp = (): string => t(`Usage: gdr-doctor nccl-log FILE... [--json]
       gdr-doctor nccl-log FILE... --host DEST | --demo | --local | --from DIR [--log-host NAME] [--json]

Reads NCCL's own log (a job run with NCCL_DEBUG=INFO; NCCL_DEBUG_SUBSYS=INIT,NET shows the most)
and says whether GPU Direct RDMA was used: per host, how many network connections went through
/GDRDMA, which NIC each GPU used, and every reason NCCL gave for GDR being off. FILE "-" is
standard input. Several files (one per rank or host) are read as one job. Launcher prefixes
(srun -l, mpirun --tag-output, torchrun) and other program output between NCCL's lines are fine.

  --json   the summary as JSON: ncclVersion, network, hcas, netConnections {total, gdrdma},
           verdict (gdr | no-gdr | mixed | no-net | unknown), hosts, findings

Side by side with the host the job ran on: diagnose it as \`gdr-doctor diagnose\` does (over SSH,
this machine, the demo host or a saved folder) and compare, per GPU, what gdr-doctor predicts NCCL
does (GPU Direct RDMA or not, which NICs) with what the log shows it did. The prediction follows the
NCCL release named in the log and the NCCL_* settings the log echoes.
  --host DEST      an SSH destination, as for diagnose (-F FILE, --batch, --timeout S apply)
  --demo, --local, --from DIR
                   the demo host, this machine, a folder of saved outputs
  --log-host NAME  the host of the log that ran there (default: the one DEST names, or the only one)
  --nccl VERSION, --nccl-env NAME=VALUE
                   as for diagnose, where the log does not say
Findings: nccl.gdr-not-used, nccl.gdr-not-predicted, nccl.unexpected-nic, nccl.socket-fallback.

Exit status: 0 read; 2 a file has no NCCL line at all (FILE:1: why, on stderr; the summary of
the other files is still printed); 3 the host to compare with could not be reached; 64 bad usage;
66 a file cannot be read.

Example:
  NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET torchrun ... 2>&1 | tee job.log
  gdr-doctor nccl-log job.log
  gdr-doctor nccl-log job.log --host gpu01
`);

type FileOutcome = 'read' | 'no-nccl-lines' | 'unreadable';

export async function runNcclLog(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, { flags: ['--json', ...COMPARE_FLAGS], options: COMPARE_OPTIONS });
  if (args.flags.has('--help')) {
    io.stdout(ncclLogHelp());
    return ExitCode.ok;
  }
  const files = args.positional;
  if (files.length === 0) throw new UsageError(t('nccl-log needs a FILE (or - for standard input); see gdr-doctor nccl-log --help'));
  if (files.filter((f) => f === '-').length > 1) throw new UsageError(t('standard input ("-") can be read only once'));
  const compare = wantsComparison(args);
  const summarizer = new NcclLogSummarizer();
  const outcomes: FileOutcome[] = [];
  for (const file of files) outcomes.push(await readFile(file, summarizer, io));
  const read = outcomes.includes('read') ? await printSummary(summarizer.summary(), args, compare, io) : ExitCode.ok;
  if (outcomes.includes('unreadable')) return ExitCode.noInput;
  return outcomes.includes('no-nccl-lines') ? ExitCode.parseError : read;
}

/** The summary, and with a host to compare with, the comparison after it (JSON: one document). */
async function printSummary(summary: NcclLogSummary, args: ParsedArgs, compare: boolean, io: CliIo): Promise<number> {
  const compared = compare ? await compareWithHost(summary, args, io) : null;
  const comparison = compared?.kind === 'compared' ? compared.comparison : null;
  if (args.flags.has('--json')) io.stdout(jsonText(comparison ? { ...summary, comparison } : summary));
  else io.stdout(`${summarizeNcclLogText(summary)}\n${comparison ? `\n${comparisonText(comparison)}\n` : ''}`);
  return compared?.kind === 'unreachable' ? compared.code : ExitCode.ok;
}

async function readFile(file: string, summarizer: NcclLogSummarizer, io: CliIo): Promise<FileOutcome> {
  const name = file === '-' ? '<stdin>' : file;
  const reader = new NcclLogReader((line, text) => summarizer.add(line, text, name));
  try {
    if (io.openInput) {
      const stream = io.openInput(file);
      stream.setEncoding('utf8');
      for await (const chunk of stream as AsyncIterable<string>) reader.push(chunk);
    } else {
      reader.push(io.readInput(file));
    }
  } catch (e) {
    io.stderr(`gdr-doctor: ${cannotReadText(file, e)}\n`);
    return 'unreadable';
  }
  reader.end();
  summarizer.addFile({ name, lines: reader.lines, ncclLines: reader.ncclLines });
  if (reader.ncclLines > 0) return 'read';
  io.stderr(`${name}:1: ${noNcclLinesText()}\n`);
  return 'no-nccl-lines';
}
