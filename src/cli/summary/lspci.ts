import { ACS_FLAGS, Lspci, redirects } from '../../core/parsers/lspci';

/** Device count, then every device with an ACS capability: whether it redirects peer traffic, and the bits on. */
export function summarizeLspci(value: Lspci): string {
  const withAcs = value.devices.filter((d) => d.acs !== null);
  const denied = value.devices.filter((d) => d.capabilitiesDenied).length;
  const lines = [`lspci: ${value.devices.length} device(s), ${withAcs.length} with Access Control Services`];
  for (const d of withAcs) {
    const ctl = d.acs?.ctl;
    const on = ctl ? ACS_FLAGS.filter((f) => ctl[f]) : [];
    const state = !ctl ? 'ACSCtl not printed' : redirects(ctl) ? `redirects peer traffic (${on.join(' ')})` : on.length > 0 ? `no redirect (${on.join(' ')})` : 'all off';
    lines.push(`  ${d.slot.padEnd(13)} ${state}`);
  }
  if (denied > 0) lines.push(`  note: ${denied} device(s) show "Capabilities: <access denied>": run lspci as root to read ACS`);
  return lines.join('\n');
}
