// Parser for /proc/driver/nvidia/version: which NVIDIA kernel module is loaded, its version and flavour.
//
// Line 1, proprietary: `NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 … 2023`
// Line 1, open:        `NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.14  Release Build  (…)  …`
// Line 2 (optional):   `GCC version:  gcc version 7.5.0 (Ubuntu 7.5.0-3ubuntu1~18.04) `
// The file is missing when no NVIDIA module is loaded; that is for the caller to report, not this parser.
// The version is the first token after the description that looks like `NNN.NN[.NN]`; a line without one
// (pre-release builds print a placeholder) is a ParseError, because the diagnosis needs the number.
import { fail, ok, Parsed, quote } from './result';
import { factLines } from './hostFactsText';

export interface NvidiaVersion {
  /** `535.129.03` */
  readonly driverVersion: string;
  /** Major branch number (`535`). */
  readonly driverBranch: number;
  /** True for the open kernel modules ("Open Kernel Module"). */
  readonly openKernelModule: boolean;
  /** `x86_64`, `aarch64`, `ppc64le`, … */
  readonly arch: string;
  /** What follows the version (build kind, builder, date), with its spacing; "" when nothing. */
  readonly buildInfo: string;
  /** Line 1 as printed, trimmed. */
  readonly nvrmLine: string;
  /** Text after `GCC version:`, trimmed (`gcc version 7.5.0 (Ubuntu …)`); null when the line is absent. */
  readonly gccVersion: string | null;
}

const WHAT = '/proc/driver/nvidia/version';
const NVRM_PREFIX = 'NVRM version:';
const GCC_PREFIX = 'GCC version:';
const VERSION_TOKEN = /^\d+\.\d+(\.\d+)?$/;
const OPEN_DESCRIPTION = /^NVIDIA UNIX Open Kernel Module for (\S+)$/;
const PROPRIETARY_DESCRIPTION = /^NVIDIA UNIX (\S+) Kernel Module$/;

export function parseNvidiaVersion(text: string): Parsed<NvidiaVersion> {
  const read = factLines(text, WHAT, `a line starting with "${NVRM_PREFIX}"`);
  if (!read.ok) return read;
  const lines = read.value;
  const nvrm = parseNvrmLine(lines[0].text.trim(), lines[0].line);
  if (!nvrm.ok) return nvrm;
  let gccVersion: string | null = null;
  if (lines.length >= 2) {
    const gcc = lines[1].text.trim();
    if (!gcc.startsWith(GCC_PREFIX)) {
      return fail(lines[1].line, `${WHAT}: expected "${GCC_PREFIX} …" as the second line, found ${quote(lines[1].text)}`);
    }
    gccVersion = gcc.slice(GCC_PREFIX.length).trim();
  }
  if (lines.length > 2) {
    return fail(lines[2].line, `${WHAT}: expected at most two lines (NVRM and GCC), found more: ${quote(lines[2].text)}`);
  }
  return ok({ ...nvrm.value, gccVersion });
}

function parseNvrmLine(line: string, lineNo: number): Parsed<Omit<NvidiaVersion, 'gccVersion'>> {
  if (!line.startsWith(NVRM_PREFIX)) {
    return fail(lineNo, `${WHAT}: expected a line starting with "${NVRM_PREFIX}", found ${quote(line)}`);
  }
  const rest = line.slice(NVRM_PREFIX.length).trim();
  const tokens = rest.split(/\s+/);
  const at = tokens.findIndex((t) => VERSION_TOKEN.test(t));
  if (at < 0) {
    return fail(lineNo, `${WHAT}: no driver version (such as 535.129.03) on the NVRM line ${quote(line)}`);
  }
  const description = tokens.slice(0, at).join(' ');
  const open = OPEN_DESCRIPTION.exec(description);
  const proprietary = PROPRIETARY_DESCRIPTION.exec(description);
  const arch = open?.[1] ?? proprietary?.[1];
  if (!arch) {
    return fail(
      lineNo,
      `${WHAT}: expected "NVIDIA UNIX <arch> Kernel Module" or "NVIDIA UNIX Open Kernel Module for <arch>" before the version, found ${quote(description)}`,
    );
  }
  const driverVersion = tokens[at];
  // Everything after the version token, keeping the driver's own double spaces.
  const versionEnd = rest.indexOf(driverVersion, description.length) + driverVersion.length;
  return ok({
    driverVersion,
    driverBranch: Number(driverVersion.split('.')[0]),
    openKernelModule: open !== null,
    arch,
    buildInfo: rest.slice(versionEnd).trim(),
    nvrmLine: line,
  });
}
