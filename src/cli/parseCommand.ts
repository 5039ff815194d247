// `gdr-doctor parse <kind> [FILE|-] [--json]`: one saved diagnostic output in, a summary or JSON out.
import { parseArgs, UsageError } from './args';
import { CliIo, ExitCode } from './io';
import { findParseKind, PARSE_KINDS } from './parseKinds';
import { jsonText } from './visible';
import { cannotReadText } from './messages';
import { t } from '../core/l10n';

export const parseHelp = (): string => t(`Usage: gdr-doctor parse <kind> [FILE|-] [--json]

Reads one saved diagnostic output (from FILE, or standard input when FILE is "-" or absent)
and prints a readable summary, or the parsed result as JSON with --json.

Kinds:
{0}

Exit status: 0 parsed; 2 the input is not valid output of that command (FILE:LINE: why, on
stderr); 64 bad usage; 66 the file cannot be read.

Example:
  nvidia-smi topo -m > node1.topo.txt && gdr-doctor parse topo node1.topo.txt
`, PARSE_KINDS.map((k) => `  ${k.kind.padEnd(15)} ${k.source}`).join('\n'));

export function runParse(argv: readonly string[], io: CliIo): number {
  const args = parseArgs(argv, { flags: ['--json'] });
  if (args.flags.has('--help')) {
    io.stdout(parseHelp());
    return ExitCode.ok;
  }
  const [kindName, file = '-', ...extra] = args.positional;
  if (!kindName) throw new UsageError(t('parse needs a kind (see gdr-doctor parse --help)'));
  if (extra.length > 0) throw new UsageError(t('parse takes one input, got also {0}', JSON.stringify(extra[0])));
  const kind = findParseKind(kindName);
  if (!kind) {
    throw new UsageError(t('unknown kind {0}; kinds: {1}', JSON.stringify(kindName), PARSE_KINDS.map((k) => k.kind).join(', ')));
  }
  let text: string;
  try {
    text = io.readInput(file);
  } catch (e) {
    io.stderr(`gdr-doctor: ${cannotReadText(file, e)}\n`);
    return ExitCode.noInput;
  }
  const result = kind.parse(text);
  if (!result.ok) {
    const name = file === '-' ? '<stdin>' : file;
    io.stderr(`${name}:${result.error.line}: ${result.error.message}\n`);
    return ExitCode.parseError;
  }
  io.stdout(args.flags.has('--json') ? jsonText(result.value) : `${kind.summarize(result.value)}\n`);
  return ExitCode.ok;
}
