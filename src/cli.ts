// The gdr-doctor CLI: the same core as the extension, without VS Code.
import { UsageError } from './cli/args';
import { CliIo, ExitCode, processIo } from './cli/io';
import { runDiagnose } from './cli/diagnoseCommand';
import { runFix } from './cli/fixCommand';
import { runNcclLog } from './cli/ncclLogCommand';
import { runParse } from './cli/parseCommand';
import { runProve } from './cli/proveCommand';
import { runDiff } from './cli/diffCommand';
import { visibleIo } from './cli/visible';
import { errorText } from './core/errorText';
import { t } from './core/l10n';
import { applyLocale, chooseLocale, takeLangOption } from './cli/lang';

const mainHelp = (): string =>
  t(`Usage: gdr-doctor <command> [options]

GPUDirect RDMA Doctor: tells whether GPUDirect RDMA can work on a GPU host, and why not.

Commands:
  parse <kind> [FILE|-] [--json]   read one saved diagnostic output (nvidia-smi topo -m, ibv_devinfo, ...)
  diagnose <host...> | --demo | --local | --from DIR [--json]
                                   collect every diagnostic of a host in one round trip
  fix <host> <fix-id> [--yes] [--dry-run]
                                   load-peermem, persist-peermem, disable-acs, persist-acs or
                                   export-timer:
                                   show the plan, then apply it
  nccl-log FILE... [--json]        read NCCL's own log (NCCL_DEBUG=INFO): was GPU Direct RDMA used,
                                   on which NICs, and why not
  prove <host> [<peer>] [--gpu N|all] [--mode host,peermem,dmabuf] [--json]
                                   measure GPUDirect RDMA per GPU↔NIC with perftest's ib_write_bw,
                                   against host memory and the line rate
  diff OLD.json NEW.json [--json]  what changed between two diagnose --json reports; exit 1 when
                                   something got worse

Options of every command:
  --lang LOCALE                    the language of what is printed: zh-CN (简体中文) or en; default:
                                   LC_ALL, LC_MESSAGES or LANG (zh_CN.UTF-8). --json output stays English.

Run "gdr-doctor <command> --help" for a command's options.
`);

const COMMANDS: Record<string, (argv: readonly string[], io: CliIo) => number | Promise<number>> = {
  parse: runParse,
  diagnose: runDiagnose,
  fix: runFix,
  'nccl-log': runNcclLog,
  prove: runProve,
  diff: runDiff,
};

/** Runs one command; what it prints reaches the terminal through visible() (cli/visible.ts). */
export async function main(fullArgv: readonly string[], rawIo: CliIo = processIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const io = visibleIo(rawIo);
  let argv: string[];
  try {
    const choice = takeLangOption(fullArgv);
    argv = choice.argv;
    applyLocale(chooseLocale(choice.lang, env), argv.includes('--json'));
  } catch (e) {
    io.stderr(`gdr-doctor: ${errorText(e)}\n`);
    return ExitCode.usage;
  }
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout(mainHelp());
    return command === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const run = COMMANDS[command];
  if (!run) {
    io.stderr(`gdr-doctor: ${t('unknown command {0}', JSON.stringify(command))}\n\n${mainHelp()}`);
    return ExitCode.usage;
  }
  try {
    return await run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`gdr-doctor ${command}: ${e.message}\n`);
      return ExitCode.usage;
    }
    // A bug, not bad input: say so in one line; the stack only with GDR_DOCTOR_DEBUG set.
    io.stderr(`gdr-doctor: ${t('internal error: {0}', errorText(e))}\n`);
    if (process.env.GDR_DOCTOR_DEBUG) io.stderr(`${(e as Error).stack}\n`);
    return ExitCode.internal;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
