// `gdr-doctor fix <destination> <fix-id>`: probe the host, show the plan (exact commands, file diff),
// ask, apply, verify, and append what ran to the local audit log.
import * as tty from 'node:tty';
import {
  FIX_IDS,
  FixPlan,
  FixResult,
  appendAudit,
  auditLogPath,
  formatPlan,
  formatResult,
  isFixId,
  newSudoMarker,
  prepareFix,
  runPlan,
  sshFixSession,
  sudoPasswordVia,
} from '../core/fixes';
import type { SshConnection } from '../core/ssh/connect';
import { openSsh } from '../core/ssh/openSsh';
import { SshPrompts } from '../core/ssh/prompts';
import { parseArgs, UsageError } from './args';
import { CliIo, ExitCode } from './io';
import { confirmOnTerminal } from './confirm';
import { cliPrompts } from './terminalPrompts';
import { jsonText } from './visible';
import { runDemoFix } from './demoFixCommand';
import { runKubeFix } from './kubeFixCommand';
import { errorText } from '../core/errorText';
import { t } from '../core/l10n';
import { unknownFixText } from './messages';
import { isPlainPath } from '../core/fixes/timerScripts';
import { cannotReachLine } from './unreachable';

export const fixHelp = (): string =>
  t(`Usage: gdr-doctor fix <destination> <fix-id> [--yes] [--force] [--dry-run] [-F FILE] [--json] [--batch]
       gdr-doctor fix --demo <fix-id> [--dry-run] [--json]
       gdr-doctor fix --kube <node> <enable-rdma|restart-driver-pod> [--context NAME] [--kubeconfig FILE]
                      [--dry-run] [--yes] [--wait S] [--json]

Applies one quick fix to a GPU host over SSH:
  load-peermem     load the peer-memory module now: modprobe nvidia_peermem (nv_peer_mem where only
                   the legacy module exists); nothing to do when one is loaded
  persist-peermem  load it at every boot: /etc/modules-load.d/nvidia-peermem.conf, or one line in
                   /etc/modules where there is no modules-load.d; loads it first when it is not loaded
  disable-acs      turn off PCIe ACS on exactly the bridges of the GPU↔NIC paths NCCL may use:
                   setpci -s <bdf> ECAP_ACS+0x6.w=0000, then lspci reads ACSCtl back; lost at reboot.
                   Refused in a VM, on a host passing devices to VMs, and unless IOMMU passthrough is
                   shown; stops if processes hold the GPUs or RDMA devices (asks; --force goes on)
  persist-acs      the same at every boot: pci=disable_acs_redir= on the kernel command line where
                   the kernel has it, else a checked systemd unit; each file shown as a diff first
  export-timer     a systemd timer that runs gdr-doctor diagnose --local --textfile-dir DIR every
                   5 minutes for node_exporter's textfile collector (gdr-doctor, Node and that
                   directory must be on the host), shown as a diff first; runs it once to verify

The host is probed first and the plan shown: each command exactly as it will be sent, and the file
diff. Nothing runs until you answer yes on the terminal, or --yes is given. Root: logged in as root,
else sudo -n, else sudo with your password asked once here (sent on stdin, never on a command line).
A peer-memory fix is never applied where the GPU Operator owns the driver, nor persisted where the
module cannot load; the ACS fixes never where ACS isolates virtual machines' devices.
Every fix that ran is appended to the audit log: $GDR_DOCTOR_AUDIT_LOG, else
$XDG_STATE_HOME/gdr-doctor/audit.log, else ~/.local/state/gdr-doctor/audit.log.

  --demo     on the built-in demo host (diagnose --demo), simulated: the plan, the result and the
             host's findings after it; nothing runs on any machine, and every run starts afresh
  --kube     a Kubernetes node under the GPU Operator, through your kubectl (never modprobe there):
             enable-rdma          kubectl patch clusterpolicy/<name> --type merge
                                  -p '{"spec":{"driver":{"rdma":{"enabled":true}}}}'
             restart-driver-pod   kubectl delete pod -n <ns> <the node's driver pod> (after a MOFED
                                  upgrade: the DaemonSet rebuilds the driver; drain GPU jobs first)
             then waits (--wait S, default 180) for the driver pod with nvidia-peermem-ctr Running and
             re-diagnoses the node (nvidia_peermem live); --context, --kubeconfig, --kubectl as kubectl's
  --dry-run  show the plan only; change nothing
  --yes      apply without asking (required without a terminal)
  --force    go on although processes hold the GPUs or RDMA devices (disable-acs); without it, and
             with --yes or --batch, the fix stops there and lists them
  -F FILE    ssh_config to use instead of ~/.ssh/config
  --textfile-dir DIR
             export-timer: node_exporter's textfile directory on the host (default: the first of
             /var/lib/node_exporter/textfile_collector, /var/lib/prometheus/node-exporter there)
  --json     print {"plan", "result"} as JSON on stdout
  --batch    never ask anything (SSH questions are answered No, sudo passwords are not asked)

Exit status: 0 applied, nothing to do, or --dry-run; 1 the fix failed or was not confirmed;
3 the host was unreachable; 4 refused (not applicable or not safe here, or no way to become root);
64 bad usage, or nothing to confirm on (no terminal) and no --yes.
`);

export const FixExit = { failed: 1, unreachable: 3, refused: 4 } as const;

export interface FixCliOptions {
  /** Whether standard input is a terminal to ask on; default isatty(0). */
  readonly stdinIsTty?: boolean;
}

export async function runFix(argv: readonly string[], io: CliIo, options: FixCliOptions = {}): Promise<number> {
  const args = parseArgs(argv, {
    flags: ['--yes', '--force', '--dry-run', '--json', '--batch', '--demo', '--kube'],
    options: ['-F', '--textfile-dir', '--wait', ...KUBE_FIX_OPTIONS],
  });
  if (args.flags.has('--help')) {
    io.stdout(fixHelp());
    return ExitCode.ok;
  }
  if (args.flags.has('--demo'))
    return runDemoFix(args.positional, { dryRun: args.flags.has('--dry-run'), json: args.flags.has('--json') }, io);
  if (args.flags.has('--kube')) return runKubeFixFrom(args, io, options);
  const [destination, fixId, ...extra] = args.positional;
  if (destination === undefined || fixId === undefined || extra.length > 0)
    throw new UsageError(t('give one destination and one fix id ({0})', FIX_IDS.join(t(' or '))));
  if (!isFixId(fixId)) throw new UsageError(unknownFixText(fixId));
  const textfileDir = textfileDirOption(args.options.get('--textfile-dir'), fixId);
  const flags = {
    dryRun: args.flags.has('--dry-run'),
    yes: args.flags.has('--yes'),
    json: args.flags.has('--json'),
    batch: args.flags.has('--batch'),
    force: args.flags.has('--force'),
    canAsk: (options.stdinIsTty ?? tty.isatty(0)) && !args.flags.has('--batch'),
    textfileDir,
  };
  const canAsk = flags.canAsk;
  if (!flags.dryRun && !flags.yes && !canAsk) {
    io.stderr(`gdr-doctor fix: ${noTerminalToAsk()}\n`);
    return ExitCode.usage;
  }
  const prompts = cliPrompts({ batch: flags.batch, notice: io.stderr });
  let conn: SshConnection;
  try {
    conn = await openSsh(destination, { prompts, configFile: args.options.get('-F') });
  } catch (e) {
    io.stderr(cannotReachLine(destination, e));
    return FixExit.unreachable;
  }
  try {
    return await planAndApply(conn, destination, fixId, flags, prompts, io);
  } finally {
    conn.close();
  }
}

const KUBE_FIX_OPTIONS = ['--context', '--kubeconfig', '--kubectl'];

/** Why nothing is applied: no --yes and no terminal to ask on. */
function noTerminalToAsk(): string {
  return t(
    'not applying anything without a yes, and there is no terminal to ask on: look at the plan with --dry-run, then run again with --yes.',
  );
}

function runKubeFixFrom(args: ReturnType<typeof parseArgs>, io: CliIo, options: FixCliOptions): Promise<number> {
  const flags = { dryRun: args.flags.has('--dry-run'), yes: args.flags.has('--yes'), json: args.flags.has('--json') };
  const canAsk = (options.stdinIsTty ?? tty.isatty(0)) && !args.flags.has('--batch');
  if (!flags.dryRun && !flags.yes && !canAsk) {
    io.stderr(`gdr-doctor fix: ${noTerminalToAsk()}\n`);
    return Promise.resolve(ExitCode.usage);
  }
  return runKubeFix(args.positional, args.options, { ...flags, canAsk }, io);
}

interface Flags {
  readonly dryRun: boolean;
  readonly yes: boolean;
  readonly json: boolean;
  readonly force: boolean;
  readonly canAsk: boolean;
  readonly textfileDir?: string;
}

/** export-timer's --textfile-dir: a plain absolute path (it goes into a unit file and a root script). */
function textfileDirOption(dir: string | undefined, fixId: string): string | undefined {
  if (dir === undefined) return undefined;
  if (fixId !== 'export-timer') throw new UsageError(t('--textfile-dir goes with export-timer'));
  if (!isPlainPath(dir))
    throw new UsageError(t('--textfile-dir needs a plain absolute path (letters, digits, / . _ + -), not {0}', JSON.stringify(dir)));
  return dir;
}

async function planAndApply(
  conn: SshConnection,
  destination: string,
  fixId: FixPlan['fixId'],
  flags: Flags,
  prompts: SshPrompts,
  io: CliIo,
): Promise<number> {
  const session = sshFixSession(conn, destination);
  const sudoMarker = newSudoMarker();
  const plan = await prepareFix(session, fixId, sudoMarker, { force: flags.force, textfileDir: flags.textfileDir });
  const showPlan = (to: (t: string) => void) => to(`${formatPlan(plan)}\n`);
  if (flags.dryRun || plan.status !== 'ready') {
    if (flags.json) io.stdout(jsonText({ plan, result: null }));
    else showPlan(io.stdout);
    return plan.status === 'refused' ? FixExit.refused : ExitCode.ok;
  }
  // With --json, stdout carries only the JSON; the plan is still shown before the question.
  showPlan(flags.json ? io.stderr : io.stdout);
  if (!flags.yes && !(await confirmOnTerminal(t('Apply this on {0}? [y/N] ', destination)))) {
    io.stderr(`${t('Not applied: nothing was changed.')}\n`);
    return FixExit.failed;
  }
  const sudoPassword = sudoPasswordVia(prompts, session);
  let result = await runPlan(plan, session, { sudoMarker, sudoPassword });
  record(result, io);
  // Processes hold the GPUs or RDMA devices: asked on a terminal (never with --yes or --batch), then planned again, forced.
  if (result.status === 'refused' && (result.holders?.length ?? 0) > 0 && !flags.yes && flags.canAsk) {
    io.stderr(`${formatResult(result)}\n`);
    if (await confirmOnTerminal(t('Reroute peer traffic under these processes anyway? [y/N] '))) {
      const forced = await prepareFix(session, fixId, sudoMarker, { force: true });
      result =
        forced.status === 'ready'
          ? await runPlan(forced, session, { sudoMarker, sudoPassword })
          : { ...result, status: forced.status, message: forced.summary, plan: forced, holders: undefined };
      record(result, io);
    }
  }
  io.stdout(flags.json ? jsonText({ plan, result }) : `${formatResult(result)}\n`);
  return result.status === 'applied' || result.status === 'nothing-to-do'
    ? ExitCode.ok
    : result.status === 'refused'
      ? FixExit.refused
      : FixExit.failed;
}

function record(result: FixResult, io: CliIo): void {
  try {
    const logged = appendAudit(result, auditLogPath());
    if (logged) io.stderr(`gdr-doctor: ${t('recorded in {0}', logged)}\n`);
  } catch (e) {
    io.stderr(`gdr-doctor: ${t('could not append to the audit log: {0}', errorText(e))}\n`);
  }
}
