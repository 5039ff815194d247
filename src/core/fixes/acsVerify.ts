// After disable-acs the host is asked again, as root, what ACSCtl each bridge shows (lspci -vvv, the
// same reading the probe makes: a bridge lspci no longer lists fails it); after persist-acs every file it
// wrote (and the unit's wants link) is read back.
import { ACS_FLAGS, redirects } from '../parsers/lspci';
import { Parsed } from '../parsers/result';
import { parsePciAcs } from '../probe/pciAcs';
import { errorText } from '../errorText';
import { ACS_UNIT, ACS_WANTS } from './acsBoot';
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
  if (!parsed.ok)
    return { ok: false, message: t("setpci ran, but lspci's reading could not be understood: {0}", parsed.error.message), lines: [] };
  const lines: string[] = [];
  const still: string[] = [];
  const gone: string[] = [];
  for (const b of acs.bridges) {
    const device = parsed.value.devices.get(b.bdf);
    // lspci prints nothing for an address with no device: the bridge is gone, not "without ACS".
    if (!device) {
      lines.push(`lspci -vvv -s ${b.bdf}: (no such device)`);
      gone.push(b.bdf);
      continue;
    }
    const ctl = device.acs?.ctl;
    if (!ctl) {
      lines.push(`lspci -vvv -s ${b.bdf}: no ACS capability`);
      continue;
    }
    const on = ACS_FLAGS.filter((f) => ctl[f]);
    lines.push(`lspci -vvv -s ${b.bdf}: ACSCtl ${on.length > 0 ? on.map((f) => `${f}+`).join(' ') : 'all off'}`);
    if (redirects(ctl)) still.push(b.bdf);
  }
  if (gone.length > 0)
    return {
      ok: false,
      message: t('lspci no longer finds {0}: the bridge is gone (or the buses renumbered); diagnose the host again.', gone.join(', ')),
      lines,
    };
  if (still.length > 0)
    return { ok: false, message: t('ACS still redirects peer traffic on {0} after the write.', still.join(', ')), lines };
  return {
    ok: true,
    message: t(
      'ACS is off on {0}: GPU↔NIC traffic stays below the switch until the next reboot.',
      acs.bridges.map((b) => b.bdf).join(', '),
    ),
    lines,
  };
}

/** After persist-acs: every file it wrote reads back as planned; the boot unit is enabled. */
export async function verifyAcsUnit(plan: FixPlan, reread: (() => Promise<Parsed<PersistState>>) | undefined): Promise<Verification> {
  const wrote = [plan.fileChange, ...(plan.otherFileChanges ?? [])].filter((c): c is NonNullable<typeof c> => c !== null);
  const state = reread ? await reread().catch((e: unknown) => ({ ok: false as const, error: { line: 0, message: errorText(e) } })) : null;
  if (!state?.ok)
    return {
      ok: false,
      message: t(
        '{0} was written but could not be read back: {1}',
        wrote.map((c) => c.path).join(', '),
        state ? state.error.message : t('no way to read it'),
      ),
      lines: [],
    };
  const files = state.value.files;
  const lines = wrote.map((c) => `${c.path}: ${files[c.path]?.kind ?? 'not read'}`);
  const wrong = wrote.filter((c) => files[c.path]?.kind !== 'regular' || (files[c.path] as { content: string }).content !== c.after);
  if (wrong.length > 0)
    return { ok: false, message: t('Reading {0} back does not find the planned content.', wrong.map((c) => c.path).join(', ')), lines };
  if (plan.persistVia === 'kernel-parameter')
    return {
      ok: true,
      message: t(
        '{0} read back as planned: the kernel turns off ACS redirection on these bridges from the next boot.',
        wrote.map((c) => c.path).join(', '),
      ),
      lines,
    };
  const link = files[ACS_WANTS];
  lines.push(`${ACS_WANTS}: ${link?.kind ?? 'not read'}`);
  if (link?.kind !== 'symlink')
    return { ok: false, message: t('{0} is written but not enabled: {1} is {2}.', ACS_UNIT, ACS_WANTS, link?.kind ?? 'missing'), lines };
  return {
    ok: true,
    message: t('{0} is written and enabled: ACS is turned off on these bridges at every boot, after its checks.', ACS_UNIT),
    lines,
  };
}
