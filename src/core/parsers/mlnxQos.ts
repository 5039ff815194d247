// `mlnx_qos -i <interface>` (MLNX_OFED / DOCA-OFED mlnx-tools): the NIC's QoS as the mlx5 driver reports it
// (Linux drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c: mlx5e_set_trust_state and mlx5e_set_dscp2prio keep the
// trust state and the DSCP→priority table, mlx5e_dcbnl_ieee_getpfc reports PFC). Only three parts are read:
//   Priority trust state: dscp
//   dscp2prio mapping:
//           prio:3 dscp:31,30,29,28,27,26,25,24,      (a priority may take several lines)
//   PFC configuration:
//           priority    0   1   2   3   4   5   6   7
//           enabled     0   0   0   1   0   0   0   0   (runs of spaces or tabs, a trailing space)
// Every other line (DCBX mode, Receive buffer size, Cable len, the `buffer` row, tc/ratelimit rows) is skipped,
// so versions that print more or fewer of them read the same. Each line is split once: linear in its length.
import { Parsed, fail, ok, quote, readLines } from './result';

export interface MlnxQos {
  /** `pcp` or `dscp` (any other word as printed); null when the output has no trust line. */
  readonly trust: string | null;
  /** Priority of each DSCP (index 0..63) the dscp2prio lines name; null where none names it. */
  readonly dscpPriority: readonly (number | null)[];
  /** Priorities whose `enabled` cell is 1, in order; null when no PFC rows were printed. */
  readonly pfcEnabled: readonly number[] | null;
}

const WHAT = 'mlnx_qos -i';

const isDigits = (s: string) => s !== '' && s.length <= 3 && /^[0-9]+$/.test(s);

export function parseMlnxQos(text: string): Parsed<MlnxQos> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  let trust: string | null = null;
  const dscpPriority: (number | null)[] = new Array<number | null>(64).fill(null);
  let priorities: number[] | null = null;
  let enabled: string[] | null = null;
  for (const [i, line] of read.value.entries()) {
    const trimmed = line.trim();
    if (trimmed.startsWith('Priority trust state:')) {
      trust = trimmed.slice('Priority trust state:'.length).trim() || null;
    } else if (trimmed.startsWith('prio:')) {
      const bad = readDscpLine(trimmed, dscpPriority);
      if (bad) return fail(i + 1, `${WHAT}: ${bad}, found ${quote(line)}`);
    } else {
      const cells = trimmed.split(/\s+/);
      if (cells.length < 2 || !cells.slice(1).every(isDigits)) continue;
      if (cells[0] === 'priority') priorities = cells.slice(1).map(Number);
      else if (cells[0] === 'enabled') enabled = cells.slice(1);
    }
  }
  const pfcEnabled = pfcOf(priorities, enabled);
  // An error message, a traceback or a usage text shows neither: not mlnx_qos's report.
  if (trust === null && pfcEnabled === null)
    return fail(1, `${WHAT}: no "Priority trust state:" line and no PFC rows; expected the output of mlnx_qos -i <interface>`);
  return ok({ trust, dscpPriority, pfcEnabled });
}

/** `prio:N dscp:a,b,c,` into the table; an error text for a line that is not that. */
function readDscpLine(trimmed: string, table: (number | null)[]): string | null {
  const m = /^prio:([0-9]{1,2})\s+dscp:([0-9,]*)$/.exec(trimmed);
  if (!m) return 'expected "prio:<priority> dscp:<list>,"';
  const prio = Number(m[1]);
  if (prio > 7) return 'a priority above 7';
  for (const d of m[2].split(',')) {
    if (d === '') continue;
    if (d.length > 2 || Number(d) > 63) return 'a DSCP above 63';
    table[Number(d)] = prio;
  }
  return null;
}

function pfcOf(priorities: number[] | null, enabled: string[] | null): number[] | null {
  if (!enabled) return null;
  const prios = priorities ?? enabled.map((_, i) => i);
  return enabled.flatMap((e, i) => (e === '1' && prios[i] !== undefined ? [prios[i]] : []));
}
