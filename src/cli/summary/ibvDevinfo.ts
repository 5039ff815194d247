import {
  activeMtu, activeSpeedGbps, activeWidthLanes, fieldText, IbvDevice, IbvDevinfo, IbvPort, linkLayer, maxMtu,
  physState, portRateGbps, portState,
} from '../../core/parsers/ibvDevinfo';
import { t } from '../../core/l10n';

/** One line per RDMA device (name, firmware, board, transport), one per port (state, rate, link layer, MTU). */
export function summarizeIbvDevinfo(value: IbvDevinfo): string {
  const lines: string[] = [];
  if (value.devices.length === 0) lines.push(`ibv_devinfo: ${t('no RDMA device listed')}`);
  else lines.push(`ibv_devinfo: ${t('{0} RDMA device(s)', value.devices.length)}`);
  for (const device of value.devices) {
    lines.push(`  ${deviceLine(device)}`);
    for (const port of device.ports) lines.push(`    ${portLine(port)}`);
  }
  for (const [message, times] of countRepeats(value.messages)) {
    lines.push(`  ${times > 1 ? t('ibv_devinfo said ({0}×):', times) : t('ibv_devinfo said:')} ${message}`);
  }
  return lines.join('\n');
}

/** Consecutive identical messages as one entry with a count (one "Failed to open device" per hidden VF). */
function countRepeats(messages: readonly string[]): [string, number][] {
  const out: [string, number][] = [];
  for (const message of messages) {
    const last = out[out.length - 1];
    if (last !== undefined && last[0] === message) last[1]++;
    else out.push([message, 1]);
  }
  return out;
}

function deviceLine(device: IbvDevice): string {
  const parts = [
    device.hca_id,
    `fw ${fieldText(device, 'fw_ver') ?? t('(not printed)')}`,
    `board ${fieldText(device, 'board_id') ?? t('(not printed)')}`,
    // Before 2010 ibv_devinfo printed no transport line; those stacks were InfiniBand only.
    `transport ${fieldText(device, 'transport') ?? t('(not printed)')}`,
  ];
  return parts.join(', ');
}

function portLine(port: IbvPort): string {
  const state = portState(port) ?? '?';
  const phys = physState(port);
  const parts = [
    `port ${port.port}: ${state}${phys === null ? '' : ` (${phys})`}`,
    rateText(port),
    layerText(port),
    `MTU ${activeMtu(port) ?? '?'} active / ${maxMtu(port) ?? '?'} max`,
  ];
  return parts.join(', ');
}

function rateText(port: IbvPort): string {
  const rate = portRateGbps(port);
  if (rate !== null) return `${rate} Gb/s (${activeWidthLanes(port)}X × ${activeSpeedGbps(port)} Gb/s)`;
  const width = fieldText(port, 'active_width');
  const speed = fieldText(port, 'active_speed');
  if (width === null && speed === null) return t('rate not printed (ibv_devinfo -v shows it)');
  return t('rate unknown (width {0}, speed {1})', width ?? '?', speed ?? '?');
}

function layerText(port: IbvPort): string {
  const layer = linkLayer(port);
  // libibverbs before 1.1.4 printed no link_layer; that was the InfiniBand-only era, but old Soft-RoCE
  // builds omit it too, so say what is missing rather than guess.
  if (layer === null) return t('link layer not printed (old libibverbs, usually InfiniBand)');
  return layer === 'Ethernet' ? 'Ethernet (RoCE)' : layer;
}
