// `gdr-doctor diff OLD.json NEW.json`: what changed between two `diagnose --json` documents (one host
// or a fleet), per host, and an exit status a script or a timer can act on: 1 when something got worse.
import * as fs from 'node:fs';
import { diffSnapshots } from '../core/watch/diff';
import { formatDiff } from '../core/watch/diffText';
import { ReportDocumentError, snapshotsOfDocument } from '../core/watch/reportDocument';
import type { HostSnapshot } from '../core/watch/snapshot';
import { t } from '../core/l10n';
import { parseArgs, UsageError } from './args';
import { CliIo, ExitCode } from './io';
import { jsonText } from './visible';

export const diffHelp = (): string =>
  t(`Usage: gdr-doctor diff OLD.json NEW.json [--json]

Compares two reports of gdr-doctor diagnose --json (one host, or a fleet), host by host: findings that
appeared, went or changed severity; GPUs whose GPUDirect RDMA verdict, NIC or path changed; PCIe
links (a GPU's width, a NIC's width and speed); driver, kernel, OFED and firmware versions; the
peer-memory modules. "-" reads one of them from standard input.

  --json       the changes as JSON

Exit status: 0 nothing got worse; 1 something got worse (a new error or warning, a severity raised, a
GPU that lost GPUDirect RDMA or vanished, a narrower link or a slower NIC link, a host no longer
diagnosed to the end); 2 a file is not a gdr-doctor report; 64 bad usage; 66 a file cannot be read.
`);

/** The exit status when something got worse. */
export const DIFF_WORSE = 1;

/** Larger than any report (a fleet of thousands of hosts) and below the longest string V8 holds. */
const MAX_REPORT_BYTES = 512 * 1024 * 1024;

export function runDiff(argv: readonly string[], io: CliIo): number {
  const args = parseArgs(argv, { flags: ['--json'] });
  if (args.flags.has('--help')) {
    io.stdout(diffHelp());
    return ExitCode.ok;
  }
  if (args.positional.length !== 2) throw new UsageError(t('give two reports: OLD.json NEW.json'));
  const [oldFile, newFile] = args.positional;
  const old = readReport(oldFile, io);
  if (typeof old === 'number') return old;
  const now = readReport(newFile, io);
  if (typeof now === 'number') return now;
  const diff = diffSnapshots(old, now);
  io.stdout(args.flags.has('--json') ? jsonText(diff) : formatDiff(diff));
  return diff.worse ? DIFF_WORSE : ExitCode.ok;
}

/** The file's hosts, or the exit status after saying on stderr why it cannot be read. */
function readReport(file: string, io: CliIo): HostSnapshot[] | number {
  let text: string;
  try {
    if (file !== '-') {
      const stat = fs.statSync(file);
      if (!stat.isFile()) throw new Error(t('not a regular file'));
      if (stat.size > MAX_REPORT_BYTES) throw new Error(t('larger than {0} MiB', MAX_REPORT_BYTES / 1024 / 1024));
    }
    text = io.readInput(file);
  } catch (e) {
    io.stderr(`gdr-doctor diff: ${file}: ${(e as Error).message}\n`);
    return ExitCode.noInput;
  }
  try {
    return snapshotsOfDocument(JSON.parse(text));
  } catch (e) {
    if (!(e instanceof SyntaxError || e instanceof ReportDocumentError)) throw e;
    io.stderr(`gdr-doctor diff: ${file}: ${e instanceof SyntaxError ? t('not JSON: {0}', e.message) : e.message}\n`);
    return ExitCode.parseError;
  }
}
