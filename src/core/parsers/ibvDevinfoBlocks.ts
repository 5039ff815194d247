// The pieces of the ibv_devinfo parser that work on one device block: splitting a printed line into key and
// value, and closing a block (checking it is whole, then building the JSON shape documented in ibvDevinfo.ts).
import { fail, ok, Parsed } from './result';
import type { IbvDevice, IbvGid, IbvPort, IbvValue } from './ibvDevinfoTypes';

export const WHAT = 'ibv_devinfo';

/** A field while it is being read: continuation lines turn it into `{ value, lines }`. */
export interface FieldDraft {
  readonly value: string;
  readonly line: number;
  lines: string[] | null;
}

export interface ScopeDraft {
  readonly fields: Map<string, FieldDraft>;
  /** How many times each repeated key has been seen, for the `key#N` names. */
  readonly repeats: Map<string, number>;
  /** The field that deeper-indented lines continue, with the indent (in columns) of its own line. */
  owner: { readonly draft: FieldDraft; readonly indent: number } | null;
  lastLine: number;
}

export interface PortDraft extends ScopeDraft {
  readonly port: number;
  readonly gids: IbvGid[];
}

export interface DeviceDraft extends ScopeDraft {
  readonly hcaId: string;
  readonly ports: PortDraft[];
}

/** Names the JSON shape uses for structure; a printed field with one of them is stored as `name#2`. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['hca_id', 'ports', 'port', 'GID']);

// Every ibv_devinfo since the first OFED prints these six for each port; a port without one was cut off.
// (`link_layer` is not among them: libibverbs before 1.1.4 did not print it.)
const REQUIRED_PORT_FIELDS = ['state', 'max_mtu', 'active_mtu', 'sm_lid', 'port_lid', 'port_lmc'];

/**
 * Splits a trimmed line into key and value: at the first colon (`fw_ver:\t\t\t\t20.37.1700`); else at a spaced
 * `=` (MLNX_OFED `ooo_rc_caps  = 0x0`); else at the first tab or double space (`log max atomic inline\t\t3`);
 * else the whole line is the key and the value is '' (`tag matching not supported`).
 */
export function splitField(line: string): [string, string] {
  const colon = line.indexOf(':');
  if (colon > 0) return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  const equals = line.indexOf('=');
  if (equals > 0 && (line[equals - 1] === ' ' || line[equals - 1] === '\t')) {
    return [line.slice(0, equals).trim(), line.slice(equals + 1).trim()];
  }
  for (let i = 1; i < line.length; i++) {
    if (line[i] === '\t' || (line[i] === ' ' && line[i + 1] === ' ')) return [line.slice(0, i).trim(), line.slice(i).trim()];
  }
  return [line, ''];
}

/** Checks that a device block is whole (port count, ports, their basic fields) and builds its JSON value. */
export function finishDevice(draft: DeviceDraft): Parsed<IbvDevice> {
  const name = draft.hcaId;
  const count = draft.fields.get('phys_port_cnt');
  if (count === undefined) {
    return fail(
      draft.lastLine,
      `${WHAT}: device ${name} ends before its "phys_port_cnt:" line; expected the whole block (output cut off?)`,
    );
  }
  if (!/^\d+$/.test(count.value)) {
    return fail(count.line, `${WHAT}: device ${name} has phys_port_cnt ${JSON.stringify(count.value)}; expected a number`);
  }
  const ports = checkPortNumbers(draft, Number(count.value));
  if (!ports.ok) return ports;
  for (const port of draft.ports) {
    const missing = REQUIRED_PORT_FIELDS.find((key) => !port.fields.has(key));
    if (missing !== undefined) {
      return fail(
        port.lastLine,
        `${WHAT}: port ${port.port} of ${name} ends before its "${missing}:" line; expected state, MTUs, LIDs and LMC for every port (output cut off?)`,
      );
    }
  }
  return ok(toDevice(draft));
}

/**
 * ibv_devinfo prints ports 1..phys_port_cnt in order; `-i N` prints port N alone. Fewer ports, starting at 1,
 * is what a cut-off output looks like (and `-i 1` on a multi-port device, which reads the same).
 */
function checkPortNumbers(draft: DeviceDraft, count: number): Parsed<true> {
  const printed = draft.ports.map((p) => p.port);
  const complete = printed.length === count && printed.every((p, i) => p === i + 1);
  const singleAsked = printed.length === 1 && printed[0] >= 2 && printed[0] <= count;
  if (complete || singleAsked) return ok(true);
  const list = printed.length === 0 ? 'none' : printed.join(', ');
  const prefix = printed.every((p, i) => p === i + 1);
  const why = prefix && printed.length < count ? ' (output cut off?)' : '';
  return fail(
    draft.lastLine,
    `${WHAT}: device ${draft.hcaId} has phys_port_cnt ${count} but ports printed: ${list}; expected ports 1 to ${count}${why}`,
  );
}

function toDevice(draft: DeviceDraft): IbvDevice {
  return Object.fromEntries([['hca_id', draft.hcaId], ...fieldEntries(draft.fields), ['ports', draft.ports.map(toPort)]]) as IbvDevice;
}

function toPort(draft: PortDraft): IbvPort {
  const gids = draft.gids.length > 0 ? [['GID', draft.gids]] : [];
  return Object.fromEntries([['port', draft.port], ...fieldEntries(draft.fields), ...gids]) as IbvPort;
}

// Object.fromEntries defines own properties, so a printed key such as `__proto__` cannot reach the prototype.
function fieldEntries(fields: Map<string, FieldDraft>): [string, IbvValue][] {
  return [...fields].map(([key, f]) => [key, f.lines === null ? f.value : { value: f.value, lines: f.lines }]);
}
