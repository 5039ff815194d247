// The shapes of a quick fix: a plan (what will run, exactly, and which file changes how), shown
// before anything runs; and a result (what ran, what the host printed, how it was verified).
// Plain JSON, so the CLI prints them, the audit log keeps them and the extension can show them.
import type { Finding, FixId } from '../diagnosis';
import type { DeviceHolder } from './holders';
import type { PciTarget } from './rootChecks';

export type { FixId } from '../diagnosis';

/** Every quick fix, in the order a host needs them. */
export const FIX_IDS: readonly FixId[] = ['load-peermem', 'persist-peermem', 'disable-acs', 'persist-acs', 'export-timer'];

export function isFixId(id: string): id is FixId {
  return (FIX_IDS as readonly string[]).includes(id);
}

/** The peer-memory modules a fix may load or persist (docs/peer-memory.md §1): the driver's own, or the legacy one. */
export type PeermemModule = 'nvidia_peermem' | 'nv_peer_mem';

/** How a step becomes root: logged in as root, `sudo -n`, or `sudo -S` with the password on stdin. */
export type Privilege = 'root' | 'sudo' | 'sudo-password';

export interface FixStep {
  /** load: modprobe; persist: a boot-time file; acs: setpci writes to ACS Control. */
  readonly kind: 'load' | 'persist' | 'acs';
  /** What it does, in words. */
  readonly title: string;
  /** The command line sent to the host, exactly. A sudo password goes on stdin, never here. */
  readonly command: string;
  readonly timeoutMs: number;
}

export interface FileChange {
  readonly path: string;
  /** Current content; null when the file does not exist yet. */
  readonly before: string | null;
  readonly after: string;
  /** Unified diff from before to after. */
  readonly diff: string;
}

/** ready: steps to run; nothing-to-do: already done; refused: not safe or not possible here (reason in summary). */
export type PlanStatus = 'ready' | 'nothing-to-do' | 'refused';

export interface FixPlan {
  readonly fixId: FixId;
  /** The destination as the user gave it. */
  readonly host: string;
  /** The login user on the host. */
  readonly user: string;
  readonly status: PlanStatus;
  /** One or two sentences: what the plan does, or why it does nothing. */
  readonly summary: string;
  readonly module: PeermemModule | null;
  readonly privilege: Privilege | null;
  readonly steps: FixStep[];
  readonly fileChange: FileChange | null;
  /** Things worth knowing that do not stop the fix. */
  readonly notes: string[];
  /** Findings behind a refusal (peermem.ofed-mismatch, peermem.missing, driver.operator-managed…). */
  readonly findings: Finding[];
  /** dma-buf prerequisites are met: a failed load is then less serious (ofed-mismatch severity). */
  readonly dmabufAvailable: boolean;
  /** Made on the demo host (src/core/fixes/demo): applying it changes only the demo's replayed state. */
  readonly simulated?: boolean;
  /** disable-acs / persist-acs: the bridges written, and how to read them back and undo. */
  readonly acs?: AcsPlan;
  /** Further files the plan changes, each shown as a diff (persist-acs: the boot script, bootloader files). */
  readonly otherFileChanges?: FileChange[];
  /** persist-acs: the kernel's own parameter in the bootloader's command line, or the checked boot unit. */
  readonly persistVia?: 'kernel-parameter' | 'boot-unit';
  /** export-timer: the command the timer runs and the two units, as planned (timerPlan.ts). */
  readonly timer?: TimerPlan;
}

export interface TimerPlan {
  readonly command: { readonly node: string; readonly cli: string; readonly textfileDir: string };
  readonly service: string;
  readonly timer: string;
}

export interface AcsBridge {
  readonly bdf: string;
  /** What lspci calls it (`PCI bridge: Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)`); "" when unread. */
  readonly description: string;
  /** ACSCtl now (4 hex digits, as setpci prints it); null when it could not be read without a password. */
  readonly before: string | null;
  /** The GPU↔NIC pairs whose path crosses it. */
  readonly pairs: string[];
  /** What a root script checks the device by before it writes: bus address, sysfs path, vendor:device. */
  readonly target: PciTarget;
}

export interface AcsPlan {
  readonly bridges: AcsBridge[];
  /** Privileged command that prints lspci's reading of the bridges (parsePciAcs reads it). */
  readonly verifyCommand: string;
  /** How to put it back, in words and commands. */
  readonly undo: string[];
}

export interface StepOutcome {
  readonly title: string;
  readonly command: string;
  readonly exitCode: number | null;
  /** What the host printed, as text; sudo's prompt marker removed. */
  readonly stdout: string;
  readonly stderr: string;
  readonly ok: boolean;
}

/** applied: ran and verified; failed: a step or the verification failed (nothing further ran). */
export type FixStatus = 'applied' | 'nothing-to-do' | 'refused' | 'failed';

export interface FixResult {
  readonly fixId: FixId;
  readonly host: string;
  readonly user: string;
  readonly status: FixStatus;
  /** What happened, in words; for a failure: which command failed and what the host printed. */
  readonly message: string;
  readonly plan: FixPlan;
  /** Steps that ran, in order; the last one is the failed one when status is failed. */
  readonly steps: StepOutcome[];
  /** Findings learned while fixing, e.g. peermem.ofed-mismatch from modprobe's "Invalid argument". */
  readonly findings: Finding[];
  /** What the re-probe or re-read showed. */
  readonly verification: string[];
  /** sudo refused the password that was sent: set by the core's own classification, not read from the (translated) message. */
  readonly passwordRejected?: boolean;
  /** Processes that held the GPUs or RDMA devices when the script looked (it stopped unless forced). */
  readonly holders?: DeviceHolder[];
  /**
   * sudo demonstrably took the password that was sent: it asked for it (its prompt marker on stderr) and a step
   * then exited 0. A step that timed out, was cut off or ran without asking (cached credentials) proves nothing.
   */
  readonly passwordAccepted?: boolean;
}
