import { ACS_FLAGS, Lspci, redirects } from '../../core/parsers/lspci';
import { t } from '../../core/l10n';

/** Device count, then every device with an ACS capability: whether it redirects peer traffic, and the bits on. */
export function summarizeLspci(value: Lspci): string {
  const withAcs = value.devices.filter((d) => d.acs !== null);
  const denied = value.devices.filter((d) => d.capabilitiesDenied).length;
  const lines = [`lspci: ${t('{0} device(s), {1} with Access Control Services', value.devices.length, withAcs.length)}`];
  for (const d of withAcs) {
    const ctl = d.acs?.ctl;
    const on = ctl ? ACS_FLAGS.filter((f) => ctl[f]) : [];
    const state = !ctl ? t('ACSCtl not printed') : redirects(ctl) ? t('redirects peer traffic ({0})', on.join(' ')) : on.length > 0 ? t('no redirect ({0})', on.join(' ')) : t('all off');
    lines.push(`  ${d.slot.padEnd(13)} ${state}`);
  }
  if (denied > 0) lines.push(`  ${t('note: {0} device(s) show "Capabilities: <access denied>": run lspci as root to read ACS', denied)}`);
  return lines.join('\n');
}
