// After disable-acs the host is asked again, as root, what ACSCtl each bridge shows (lspci -vvv, the
// same reading the probe makes); after persist-acs the unit file and its wants link are read back.
import { ACS_FLAGS, redirects } from '../parsers/lspci';
import { Parsed } from '../parsers/result';
import { parsePciAcs } from '../probe/pciAcs';
import { errorText } from '../errorText';
import { ACS_UNIT, ACS_WANTS } from './acsScripts';
import { PersistState } from './persistState';
import { RemoteShell } from './shell';
import { FixPlan } from './types';
import { Verification } from './verify';
import { t } from '../l10n';

const VERIFY_TIMEOUT_MS = 30_000;

export async function verifyAcs(plan: FixPlan, shell: RemoteShell, stdin: string | undefined): Promise<Verification> {
  const acs = plan.acs;
  if (!acs) return { ok: false, message: t('The plan names no bridge to check.'), lines: [] };
  const r = await shell.run(acs.verifyCommand, { stdin, timeoutMs: VERIFY_TIMEOUT_MS }).catch((e: unknown) => ({ error: errorText(e) }));
  if ('error' in r || r.exitCode !== 0) {
    const why = 'error' in r ? r.error : `exit ${r.exitCode}: ${r.stderr.toString('utf8').trim()}`;
    return { ok: false, message: t('setpci ran, but ACSCtl could not be read back to verify it ({0}).', why), lines: [] };
  }
  const parsed = parsePciAcs(r.stdout.toString('utf8'));
  if (!parsed.ok) return { ok: false, message: t('setpci ran, but lspci\'s reading could not be understood: {0}', parsed.error.message), lines: [] };
  const lines: string[] = [];
  const still: string[] = [];
  for (const b of acs.bridges) {
    const ctl = parsed.value.devices.get(b.bdf)?.acs?.ctl;
    if (!ctl) {
      lines.push(`lspci -vvv -s ${b.bdf}: no ACS capability`);
      continue;
    }
    const on = ACS_FLAGS.filter((f) => ctl[f]);
    lines.push(`lspci -vvv -s ${b.bdf}: ACSCtl ${on.length > 0 ? on.map((f) => `${f}+`).join(' ') : 'all off'}`);
    if (redirects(ctl)) still.push(b.bdf);
  }
  if (still.length > 0) return { ok: false, message: t('ACS still redirects peer traffic on {0} after the write.', still.join(', ')), lines };
  return { ok: true, message: t('ACS is off on {0}: GPU↔NIC traffic stays below the switch until the next reboot.', acs.bridges.map((b) => b.bdf).join(', ')), lines };
}

export async function verifyAcsUnit(plan: FixPlan, reread: (() => Promise<Parsed<PersistState>>) | undefined): Promise<Verification> {
  const state = reread ? await reread().catch((e: unknown) => ({ ok: false as const, error: { line: 0, message: errorText(e) } })) : null;
  if (!state?.ok) return { ok: false, message: t('{0} was written but could not be read back: {1}', ACS_UNIT, state ? state.error.message : t('no way to read it')), lines: [] };
  const unit = state.value.files[ACS_UNIT];
  const link = state.value.files[ACS_WANTS];
  const lines = [`${ACS_UNIT}: ${unit?.kind ?? 'not read'}`, `${ACS_WANTS}: ${link?.kind ?? 'not read'}`];
  if (unit?.kind !== 'regular' || unit.content !== plan.fileChange?.after) return { ok: false, message: t('Reading {0} back does not find the planned unit.', ACS_UNIT), lines };
  if (link?.kind !== 'symlink') return { ok: false, message: t('{0} is written but not enabled: {1} is {2}.', ACS_UNIT, ACS_WANTS, link?.kind ?? 'missing'), lines };
  return { ok: true, message: t('{0} is written and enabled: ACS is turned off on these bridges at every boot.', ACS_UNIT), lines };
}
