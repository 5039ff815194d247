// Parser for `ofed_info -s`: the one line that names the installed OFED distribution and its version.
//
// Real outputs: `MLNX_OFED_LINUX-23.07-0.5.1.2:` (MLNX_OFED), `OFED-internal-23.07-0.5.0:` (the OFED that
// DOCA-Host installs), `MLNX_OFED_LINUX-24.10-1.1.4.0` (no trailing colon). The distribution is everything
// before the first "-" followed by a digit; the version is the rest, without the colon.
//
// Only the `-s` form is read: a multi-line input (plain `ofed_info`, which lists every package) is a
// ParseError at line 2. "command not found" and other text give a ParseError at line 1.
import { fail, ok, Parsed, quote } from './result';
import { factLines } from './hostFactsText';

export type OfedFlavor = 'mlnx-ofed' | 'doca-ofed' | 'other';

export interface OfedInfo {
  /** The line as printed, trimmed. */
  readonly raw: string;
  /** `MLNX_OFED_LINUX`, `OFED-internal`, … */
  readonly distribution: string;
  /** `23.07-0.5.1.2` */
  readonly version: string;
  /** Release part of the version (`23.07`, `5.8`, `4.0`). */
  readonly release: string;
  /** MLNX_OFED (`MLNX_OFED_LINUX`) or the DOCA-Host OFED (`OFED-internal`). */
  readonly flavor: OfedFlavor;
}

const WHAT = 'ofed_info -s';
const DISTRIBUTION = /^[A-Za-z][A-Za-z0-9_]*(-[A-Za-z][A-Za-z0-9_]*)*$/;
const VERSION = /^\d+(\.\d+)*(-[0-9A-Za-z.]+)*$/;

export function parseOfedInfo(text: string): Parsed<OfedInfo> {
  const read = factLines(text, WHAT, `one line such as "MLNX_OFED_LINUX-23.07-0.5.1.2:"`);
  if (!read.ok) return read;
  const lines = read.value;
  if (lines.length > 1) {
    return fail(lines[1].line, `${WHAT}: expected a single line, found more: ${quote(lines[1].text)} (output of "ofed_info" without -s?)`);
  }
  const { text: line, line: lineNo } = lines[0];
  const raw = line.trim();
  const body = raw.endsWith(':') ? raw.slice(0, -1) : raw;
  const split = splitAtVersion(body);
  if (!split || !DISTRIBUTION.test(split.distribution) || !VERSION.test(split.version)) {
    return fail(lineNo, `${WHAT}: expected "<DISTRIBUTION>-<version>:" such as "MLNX_OFED_LINUX-23.07-0.5.1.2:", found ${quote(line)}`);
  }
  return ok({
    raw,
    distribution: split.distribution,
    version: split.version,
    release: split.version.split('-')[0],
    flavor: flavorOf(split.distribution),
  });
}

/** Splits `NAME-PARTS-1.2-3` at the first "-" that is followed by a digit. */
function splitAtVersion(body: string): { distribution: string; version: string } | null {
  for (let i = 0; i < body.length - 1; i++) {
    if (body[i] === '-' && body[i + 1] >= '0' && body[i + 1] <= '9') {
      return { distribution: body.slice(0, i), version: body.slice(i + 1) };
    }
  }
  return null;
}

function flavorOf(distribution: string): OfedFlavor {
  if (distribution === 'MLNX_OFED_LINUX') return 'mlnx-ofed';
  if (distribution === 'OFED-internal') return 'doca-ofed';
  return 'other';
}
