// Typed readings of the printed ibv_devinfo fields, for the diagnosis and the summary. The parsed value keeps
// the text as printed; these turn the few fields a GPUDirect diagnosis needs into enums and numbers.
import type { IbvDevice, IbvPort } from './ibvDevinfoTypes';

/** `enum ibv_port_state`; `UNKNOWN` for anything else printed ("invalid state (7)"). */
export type IbvPortState = 'NOP' | 'DOWN' | 'INIT' | 'ARMED' | 'ACTIVE' | 'ACTIVE_DEFER' | 'UNKNOWN';

/** IB PortPhysicalState as rdma-core names it (`-v` only); `UNKNOWN` for anything else. */
export type IbvPhysState = 'SLEEP' | 'POLLING' | 'DISABLED' | 'TRAINING' | 'LINK_UP' | 'LINK_ERROR_RECOVERY' | 'PHY_TEST' | 'UNKNOWN';

/** What `link_layer:` says; rdma-core prints `Unknown` for a value it has no name for. */
export type IbvLinkLayer = 'InfiniBand' | 'Ethernet' | 'Unknown';

const PORT_STATES: readonly IbvPortState[] = ['NOP', 'DOWN', 'INIT', 'ARMED', 'ACTIVE', 'ACTIVE_DEFER'];
const PHYS_STATES: readonly IbvPhysState[] = [
  'UNKNOWN',
  'SLEEP',
  'POLLING',
  'DISABLED',
  'TRAINING',
  'LINK_UP',
  'LINK_ERROR_RECOVERY',
  'PHY_TEST',
];

type Fields = IbvDevice | IbvPort;

/** The printed text of a field: the value itself, or for a multi-line field the text on its first line. */
export function fieldText(record: Fields, key: string): string | null {
  const v = record[key];
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object' && 'value' in v && typeof v.value === 'string') return v.value;
  return null;
}

/** The continuation lines of a multi-line field (flag names, support lists); [] when it has none. */
export function fieldLines(record: Fields, key: string): readonly string[] {
  const v = record[key];
  if (v !== null && typeof v === 'object' && 'lines' in v && Array.isArray(v.lines)) return v.lines;
  return [];
}

export function physPortCount(device: IbvDevice): number | null {
  return wholeNumber(fieldText(device, 'phys_port_cnt'));
}

/**
 * The logical port state. Read from the code in parentheses when printed, so the old lowercase spelling
 * (`active (4)`, OFED 1.x) and today's `PORT_ACTIVE (4)` agree; null when the port has no `state:` line.
 */
export function portState(port: IbvPort): IbvPortState | null {
  const text = fieldText(port, 'state');
  if (text === null) return null;
  const code = parenCode(text);
  if (code !== null) return PORT_STATES[code] ?? 'UNKNOWN';
  const name = text.toUpperCase().replace(/^PORT_/, '');
  return PORT_STATES.find((s) => s === name) ?? 'UNKNOWN';
}

/** The physical link state (`phys_state: LINK_UP (5)`), printed only by `ibv_devinfo -v`; null otherwise. */
export function physState(port: IbvPort): IbvPhysState | null {
  const text = fieldText(port, 'phys_state');
  if (text === null) return null;
  const code = parenCode(text);
  return code !== null && code > 0 ? (PHYS_STATES[code] ?? 'UNKNOWN') : 'UNKNOWN';
}

/**
 * The port's link layer as printed, or null when there is no `link_layer:` line. libibverbs before 1.1.4
 * (2010) never printed it, and those stacks only knew InfiniBand, so a missing line usually means InfiniBand;
 * but a 2016 Soft-RoCE user space also omitted it (SoftRoCE/rxe-dev#46), so this returns what is printed and
 * leaves the inference to the caller.
 */
export function linkLayer(port: IbvPort): IbvLinkLayer | null {
  const text = fieldText(port, 'link_layer');
  if (text === null) return null;
  return text === 'InfiniBand' || text === 'Ethernet' ? text : 'Unknown';
}

/** Active MTU in bytes (`4096 (5)` → 4096); null when missing or printed as "invalid MTU". */
export function activeMtu(port: IbvPort): number | null {
  return leadingNumber(fieldText(port, 'active_mtu'));
}

export function maxMtu(port: IbvPort): number | null {
  return leadingNumber(fieldText(port, 'max_mtu'));
}

/** Lanes from `active_width: 4X (2)` (`-v` only); null when missing or "invalid width". */
export function activeWidthLanes(port: IbvPort): number | null {
  const match = /^(\d+)X\b/.exec(fieldText(port, 'active_width') ?? '');
  return match ? Number(match[1]) : null;
}

/** Per-lane signalling rate from `active_speed: 50.0 Gbps (64)` (`-v` only); null when missing or invalid. */
export function activeSpeedGbps(port: IbvPort): number | null {
  const match = /^(\d+(?:\.\d+)?) Gbps\b/.exec(fieldText(port, 'active_speed') ?? '');
  return match ? Number(match[1]) : null;
}

/** Lanes × per-lane rate (4X × 50.0 Gbps = 200), the figure `ibstat` prints as "Rate"; null when unknown. */
export function portRateGbps(port: IbvPort): number | null {
  const lanes = activeWidthLanes(port);
  const speed = activeSpeedGbps(port);
  return lanes === null || speed === null ? null : lanes * speed;
}

/** The code ibv_devinfo prints in parentheses at the end of enum fields: `PORT_DOWN (1)` → 1. */
function parenCode(text: string): number | null {
  const match = /\((\d+)\)$/.exec(text);
  return match ? Number(match[1]) : null;
}

function leadingNumber(text: string | null): number | null {
  const match = /^(\d+)\b/.exec(text ?? '');
  return match ? Number(match[1]) : null;
}

function wholeNumber(text: string | null): number | null {
  return text !== null && /^\d+$/.test(text) ? Number(text) : null;
}
