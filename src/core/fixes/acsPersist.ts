// The persist-acs plan (docs/platform.md §3): where DGX OS already manages ACS, nothing (its packages
// are not competed with); where the kernel has pci=disable_acs_redir= and the bootloader's command line
// can be edited safely, that (acsCmdline.ts); otherwise the checked boot unit (acsBoot.ts). Each file it
// writes is shown as a diff; nothing takes effect before the next boot, and the plan says so.
import { factOf } from '../diagnosis/evidence';
import { ACS_BOOT_SCRIPT, ACS_UNIT, ACS_WANTS, DGX_ACS_PACKAGES, acsBootScript, acsUnit, persistAcsScript } from './acsBoot';
import { CmdlineEdit, cmdlineEdit, cmdlineScript, kernelHasDisableAcsRedir } from './acsCmdline';
import { AcsPlanInput, Base, readyPlan, refused } from './acsReady';
import { unifiedDiff } from './diff';
import { PersistState } from './persistState';
import { PciTarget } from './rootChecks';
import { FileChange, FixPlan, Privilege } from './types';
import { t } from '../l10n';

export interface PersistParts {
  readonly acs: NonNullable<FixPlan['acs']>;
  readonly privilege: Privilege;
  readonly notes: string[];
  readonly endpoints: PciTarget[];
}

function describe(p: PersistParts): string {
  return p.acs.bridges.map((b) => `${b.bdf}${b.pairs.length > 0 ? ` (${b.pairs.join(', ')})` : ''}`).join('; ');
}

export function planPersistAcs(input: AcsPlanInput, base: Base, parts: PersistParts): FixPlan {
  if (!input.unitState?.ok)
    return refused(base, {
      refused: t(
        'Could not read {0} and the bootloader files ({1}): no change can be shown, so none is made.',
        ACS_UNIT,
        input.unitState ? input.unitState.error.message : t('not read'),
      ),
    });
  const state = input.unitState.value;
  const dgx = DGX_ACS_PACKAGES.filter((p) => state.packages?.[p] === 'installed');
  if (dgx.includes('nvidia-acs-disable'))
    return refused(base, {
      refused: t(
        'DGX OS\'s own package nvidia-acs-disable is installed ({0}): it disables PCIe ACS at boot, and gdr-doctor does not write a competing unit or kernel parameter. If ACS still redirects, look at that package\'s service and its log (DGX OS User Guide, "DGX Software Stack").',
        dgx.join(', '),
      ),
    });
  const release = factOf(input.report, 'uname')?.release ?? null;
  const os = factOf(input.report, 'os-release');
  const debian = os ? [os.id, ...os.idLike].some((x) => x === 'debian' || x === 'ubuntu') : false;
  const edit = kernelHasDisableAcsRedir(release)
    ? cmdlineEdit(
        state,
        parts.acs.bridges.map((b) => b.target),
        { updateGrub: debian },
      )
    : null;
  if (edit !== null && typeof edit !== 'string') return kernelParameterPlan(input, base, parts, edit);
  const why =
    edit === null
      ? release === null
        ? t('the kernel release was not read, so whether it has pci=disable_acs_redir= (Linux 5.1+) is unknown')
        : t('kernel {0} predates pci=disable_acs_redir= (Linux 5.1)', release)
      : edit;
  return bootUnitPlan(input, base, parts, state, why);
}

function kernelParameterPlan(input: AcsPlanInput, base: Base, parts: PersistParts, edit: CmdlineEdit): FixPlan {
  const param = `pci=disable_acs_redir=${edit.selector}`;
  if (edit.changes.length === 0)
    return {
      ...base,
      acs: parts.acs,
      persistVia: 'kernel-parameter',
      status: 'nothing-to-do',
      summary: t('{0} is already on the kernel command line the bootloader uses: nothing to do.', param),
    };
  const [first, ...rest] = edit.changes;
  const plan = readyPlan(input, base, parts.acs, parts.privilege, {
    step: {
      kind: 'persist',
      title: t('add {0} to {1}{2}', param, edit.changes.map((c) => c.path).join(', '), edit.regenerate ? ` (${edit.regenerate})` : ''),
      script: cmdlineScript(edit),
    },
    fileChange: first,
    otherFileChanges: rest,
    notes: [
      ...parts.notes,
      t(
        "The kernel's own mechanism (Linux 5.1+, kernel-parameters.txt; drivers/pci/pci.c pci_disable_acs_redir): it clears Request/Completion Redirect and Egress Control on these bridges whenever the kernel sets ACS, also after a device reset. It takes effect at the next boot; until then disable-acs turns ACS off now.",
      ),
      edit.selector.startsWith('pci:')
        ? t('{0} names the switch model: every port of that model on the host, also ones outside the GPU↔NIC paths.', edit.selector)
        : t('The bridges are named by their path from the root port, which survives bus renumbering.'),
      t('Each file is written only if it still holds what was read, then replaced in one rename.'),
    ],
    summary: t(
      'Set {0} on the kernel command line for the bridges {1}, {2}; effective from the next boot.',
      param,
      describe(parts),
      privilegeWords(parts, input),
    ),
  });
  return { ...plan, persistVia: 'kernel-parameter' };
}

function privilegeWords(parts: PersistParts, input: AcsPlanInput): string {
  return parts.privilege === 'root' ? t('as root') : t('as root through sudo ({0})', input.user);
}

function bootUnitPlan(input: AcsPlanInput, base: Base, parts: PersistParts, state: PersistState, why: string): FixPlan {
  const files = state.files;
  for (const path of [ACS_UNIT, ACS_BOOT_SCRIPT])
    if (files[path] && files[path].kind !== 'regular' && files[path].kind !== 'absent')
      return refused(base, { refused: t('{0} exists but is not a regular file: gdr-doctor does not replace it.', path) });
  const unit = acsUnit();
  const boot = acsBootScript(
    parts.acs.bridges.map((b) => b.target),
    parts.endpoints,
  );
  const before = (path: string) => (files[path]?.kind === 'regular' ? (files[path] as { content: string }).content : null);
  if (before(ACS_UNIT) === unit && before(ACS_BOOT_SCRIPT) === boot && files[ACS_WANTS]?.kind === 'symlink')
    return {
      ...base,
      acs: parts.acs,
      persistVia: 'boot-unit',
      status: 'nothing-to-do',
      summary: t('{0} already turns off ACS on these bridges at boot and is enabled: nothing to do.', ACS_UNIT),
    };
  const change = (path: string, after: string): FileChange => ({
    path,
    before: before(path),
    after,
    diff: unifiedDiff(path, before(path), after),
  });
  const plan = readyPlan(input, base, parts.acs, parts.privilege, {
    step: {
      kind: 'persist',
      title: t('write {0} and {1} (temp files, then rename), run its checks once, enable it ({2})', ACS_BOOT_SCRIPT, ACS_UNIT, ACS_WANTS),
      script: persistAcsScript(unit, boot),
    },
    fileChange: change(ACS_BOOT_SCRIPT, boot),
    otherFileChanges: [change(ACS_UNIT, unit)],
    notes: [
      ...parts.notes,
      t('Not the kernel parameter pci=disable_acs_redir=: {0}. A boot unit instead.', why),
      t(
        'At every boot the script checks, before it writes: setpci from a root-owned system directory, no IOMMU group held by VFIO, each GPU, NIC and bridge still the same device at the same place (vendor:device, path from the root port), IOMMU passthrough. It logs each step to the journal (journalctl -u gdr-doctor-acs) and fails the unit visibly on the first check that fails, writing nothing.',
      ),
      t('The unit runs at the next boot; for now, disable-acs turns ACS off at once.'),
    ],
    summary: t(
      'Add a checked oneshot systemd unit that writes 0000 to ACS Control of {0} at every boot, {1}; its checks run once now, then the files and the link are read back.',
      describe(parts),
      privilegeWords(parts, input),
    ),
  });
  return { ...plan, persistVia: 'boot-unit' };
}
