// Parser for `ibv_devinfo` and `ibv_devinfo -v` (rdma-core `libibverbs/examples/devinfo.c`, MLNX_OFED builds,
// and the pre-2010 OFED one): one block per RDMA device, `hca_id:` first, then `key: value` lines, then
// one `port: N` block per port.
//
// Representation (keys are the printed names, values the printed text, trimmed):
//   - `{ devices: [{ hca_id, …device fields…, ports: [{ port: 1, …port fields…, GID? }] }], messages }`.
//   - A field followed by deeper-indented lines (`device_cap_flags:` + flag names, `rc_odp_caps:` + support
//     list, rdma-core `rss_caps:` + its nested `key: value` lines) becomes `{ value, lines }`: `value` is the
//     text after the colon ('' when none), `lines` each deeper line, trimmed, in order.
//   - `GID[  N]:` lines become `GID: [{ index, gid, type }]`; `type` is the `RoCE v1`/`RoCE v2` suffix newer
//     rdma-core prints, or null. Indexes are kept because ibv_devinfo skips empty GID slots.
//   - A key printed twice in one block (`-v` prints `max_sge` for the device and again for tag matching)
//     keeps the first under its name and the later ones as `max_sge#2`, `max_sge#3`.
//   - Lines without a colon (MLNX_OFED 4 `-v`): `ooo_rc_caps  = 0x0` splits at `=`,
//     `log atomic arg sizes (mask)\t\t0x8` at the first tab or run of spaces, and a sentence such as
//     `tag matching not supported` becomes a key with the value ''.
//   - The `Device ports:` heading (MLNX_OFED) carries no data and is not kept.
//   - ibv_devinfo's own stderr lines at column 0 (`No IB devices found`, `Failed to get IB devices list: …`,
//     `Failed to open device`, `libibverbs: Warning: …`, `IB device 'x' wasn't found`) go to `messages`;
//     "no device" is therefore `{ devices: [], messages: ['No IB devices found'] }`.
//
// Indentation only tells a field's continuation lines from the next field, so tab-expanded copies (any tab
// width) and copies indented as a whole read the same. Limits: `-i 1` on a multi-port device cannot be told
// from an output cut after port 1 and is refused; a cut inside the `-v` lines of the last port is not seen.
import { fail, firstContentLine, ok, Parsed, quote, readLines } from './result';
import { deviceNameProblem } from './deviceName';
import { DeviceDraft, FieldDraft, finishDevice, RESERVED_KEYS, ScopeDraft, splitField, WHAT } from './ibvDevinfoBlocks';
import type { IbvDevice, IbvDevinfo, IbvGid } from './ibvDevinfoTypes';

export {
  activeMtu,
  activeSpeedGbps,
  activeWidthLanes,
  fieldLines,
  fieldText,
  linkLayer,
  maxMtu,
  physPortCount,
  physState,
  portRateGbps,
  portState,
} from './ibvDevinfoFields';
export type { IbvLinkLayer, IbvPhysState, IbvPortState } from './ibvDevinfoFields';
export type { IbvDevice, IbvDevinfo, IbvGid, IbvLines, IbvPort, IbvValue } from './ibvDevinfoTypes';

const HCA_LINE = /^hca_id:\s*(.*)$/;
const PORT_LINE = /^port:\s*(\d+)$/;
const GID_LINE = /^GID\[\s*(\d+)\]:\s*(.*)$/;
// What ibv_devinfo and libibverbs write to stderr; always at column 0, so they never look like a field.
const DIAGNOSTIC_PREFIXES = ['No IB devices found', 'Failed to ', 'libibverbs:', 'IB device ', 'Invalid port requested'];

export function parseIbvDevinfo(text: string): Parsed<IbvDevinfo> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const lines = read.value;
  if (firstContentLine(lines) < 0) {
    return fail(1, `${WHAT}: empty input; expected "hca_id: <device>" blocks or "No IB devices found"`);
  }
  const devices: IbvDevice[] = [];
  const messages: string[] = [];
  let current: DeviceDraft | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const trimmed = raw.trim();
    if (trimmed === '') continue;
    if (isDiagnostic(raw)) {
      messages.push(trimmed);
      continue;
    }
    const hca = HCA_LINE.exec(trimmed);
    if (hca) {
      const done = closeDevice(current, devices);
      if (!done.ok) return done;
      if (hca[1] === '') return fail(i + 1, `${WHAT}: "hca_id:" without a device name; expected "hca_id: mlx5_0"`);
      const badName = deviceNameProblem(hca[1]);
      if (badName !== null) return fail(i + 1, `${WHAT}: ${badName}`);
      current = { hcaId: hca[1], ports: [], fields: new Map(), repeats: new Map(), owner: null, lastLine: i + 1 };
      continue;
    }
    if (current === null) return notAnOutput(raw, i + 1);
    const added = addLine(current, raw, trimmed, i + 1);
    if (!added.ok) return added;
  }
  const done = closeDevice(current, devices);
  if (!done.ok) return done;
  return devices.length > 0 ? ok({ devices, messages }) : noDevices(messages, lines.length);
}

function isDiagnostic(raw: string): boolean {
  return DIAGNOSTIC_PREFIXES.some((prefix) => raw.startsWith(prefix));
}

function closeDevice(draft: DeviceDraft | null, devices: IbvDevice[]): Parsed<true> {
  if (draft === null) return ok(true);
  const device = finishDevice(draft);
  if (!device.ok) return device;
  devices.push(device.value);
  return ok(true);
}

/** Reads one non-blank line inside a device block: a port header, a GID, a continuation, or a field. */
function addLine(device: DeviceDraft, raw: string, trimmed: string, lineNo: number): Parsed<true> {
  device.lastLine = lineNo;
  const portHeader = PORT_LINE.exec(trimmed);
  if (portHeader) {
    const port = Number(portHeader[1]);
    if (device.ports.some((p) => p.port === port)) {
      return fail(
        lineNo,
        `${WHAT}: port ${port} of ${device.hcaId} is printed twice; expected each port once (two outputs pasted together?)`,
      );
    }
    device.ports.push({ port, gids: [], fields: new Map(), repeats: new Map(), owner: null, lastLine: lineNo });
    return ok(true);
  }
  const port = device.ports[device.ports.length - 1];
  if (port === undefined && trimmed === 'Device ports:') return ok(true);
  const scope: ScopeDraft = port ?? device;
  scope.lastLine = lineNo;
  const gid = port === undefined ? null : GID_LINE.exec(trimmed);
  if (port !== undefined && gid) {
    port.gids.push(readGid(Number(gid[1]), gid[2]));
    port.owner = null;
    return ok(true);
  }
  addField(scope, raw, trimmed, lineNo);
  return ok(true);
}

/** A deeper-indented line continues the field above it; anything else is a field of its own. */
function addField(scope: ScopeDraft, raw: string, trimmed: string, lineNo: number): void {
  const indent = indentColumns(raw);
  if (scope.owner !== null && indent > scope.owner.indent) {
    (scope.owner.draft.lines ??= []).push(trimmed);
    return;
  }
  const [key, value] = splitField(trimmed);
  const draft: FieldDraft = { value, line: lineNo, lines: null };
  scope.fields.set(freeKey(scope, key), draft);
  scope.owner = { draft, indent };
}

/** The key itself the first time, then `key#2`, `key#3`… (counted, so many repeats stay linear). */
function freeKey(scope: ScopeDraft, key: string): string {
  if (!scope.fields.has(key) && !RESERVED_KEYS.has(key)) return key;
  const n = (scope.repeats.get(key) ?? 1) + 1;
  scope.repeats.set(key, n);
  return `${key}#${n}`;
}

function readGid(index: number, printed: string): IbvGid {
  const comma = printed.lastIndexOf(',');
  if (comma < 0) return { index, gid: printed, type: null };
  return { index, gid: printed.slice(0, comma).trim(), type: printed.slice(comma + 1).trim() };
}

/** Leading whitespace in columns, tabs to the next multiple of 8, so tabbed and expanded copies compare alike. */
function indentColumns(line: string): number {
  let column = 0;
  for (const ch of line) {
    if (ch === '\t') column = (Math.floor(column / 8) + 1) * 8;
    else if (ch === ' ' || ch === '\u00a0') column++;
    else break;
  }
  return column;
}

function noDevices(messages: string[], lineCount: number): Parsed<IbvDevinfo> {
  // Warnings alone come before the device list, so without a final word the output was cut off.
  if (messages.every((m) => m.startsWith('libibverbs: Warning'))) {
    return fail(
      lineCount,
      `${WHAT}: only libibverbs warnings; expected the device blocks or "No IB devices found" after them (output cut off?)`,
    );
  }
  return ok({ devices: [], messages });
}

function notAnOutput(raw: string, lineNo: number): Parsed<never> {
  const line = raw.trim();
  let hint = '';
  if (/^\d+ HCAs? found:$/.test(line)) hint = ' (this is `ibv_devinfo -l`, which lists names only; run ibv_devinfo without -l)';
  else if (line.startsWith("CA '")) hint = ' (this looks like `ibstat` output)';
  else if (/^device\s+node GUID$/.test(line)) hint = ' (this looks like `ibv_devices` output)';
  return fail(lineNo, `${WHAT}: expected "hca_id: <device>" or "No IB devices found", found ${quote(raw)}${hint}`);
}
