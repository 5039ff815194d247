// persist-acs as a boot step, where the kernel's own parameter cannot be used (acsCmdline.ts): a oneshot
// systemd unit that runs a script written next to it. At every boot the script checks, on the host, what
// disable-acs checks before it writes — and more, since the machine may have changed since: setpci found
// only where root put it; no IOMMU group held by VFIO; each GPU and NIC of the paths, and each bridge,
// still the device it was (bus address, path from the root port, vendor:device: a new card or a firmware
// update renumbers buses); IOMMU passthrough shown. It logs each decision to the journal (the unit's
// output) and exits 1 on the first failed check, so the unit shows as failed (systemctl --failed) and
// nothing is written. Linux sets ACS again when it enumerates or restores a device (drivers/pci/pci.c
// pci_restore_state → pci_enable_acs), which a boot step cannot follow: the kernel parameter can.
import { PciTarget, SAME_LINES, TOOL_LINES, checkTarget, sameLines } from './rootChecks';
import { INSTALL_TEMP_LINES, PREAMBLE, readFilesLines, replaceFileHead, shCommand } from './scripts';

export const ACS_UNIT = '/etc/systemd/system/gdr-doctor-acs.service';
export const ACS_WANTS = '/etc/systemd/system/multi-user.target.wants/gdr-doctor-acs.service';
export const ACS_BOOT_DIR = '/etc/gdr-doctor';
export const ACS_BOOT_SCRIPT = `${ACS_BOOT_DIR}/acs-boot.sh`;

/** The unit: fails visibly (no `-` before ExecStart), its output in the journal. */
export function acsUnit(): string {
  return [
    '# Written by gdr-doctor persist-acs: at every boot, turns off PCIe Access Control Services on the bridges',
    `# between GPUs and RDMA NICs, after ${ACS_BOOT_SCRIPT} has checked each of them is still the device it was,`,
    '# that no device is passed to a VM and that the IOMMU does not translate their DMA. Its log:',
    '# journalctl -u gdr-doctor-acs. Undo: rm ' + `${ACS_WANTS} ${ACS_UNIT} ${ACS_BOOT_SCRIPT}; systemctl daemon-reload.`,
    '[Unit]',
    'Description=Disable PCIe ACS on the bridges between GPUs and RDMA NICs, after checking them (gdr-doctor)',
    'After=systemd-modules-load.service',
    '',
    '[Service]',
    'Type=oneshot',
    'RemainAfterExit=yes',
    `ExecStart=/bin/sh ${ACS_BOOT_SCRIPT}`,
    'StandardOutput=journal',
    'StandardError=journal',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

const PASSTHROUGH_CMDLINE = '*" iommu=pt "*|*" iommu.passthrough=1 "*|*" intel_iommu=off "*|*" amd_iommu=off "*';
const FAIL_NO_PASSTHROUGH = 'fail "the IOMMU is on, the group type of $b cannot be read and the command line shows no passthrough"';

/** The boot script: every check, then the writes; `--check` stops after the checks. */
export function acsBootScript(bridges: readonly PciTarget[], endpoints: readonly PciTarget[]): string {
  const ends = endpoints.map(checkTarget);
  return [
    '#!/bin/sh',
    '# Written by gdr-doctor persist-acs; run at boot by gdr-doctor-acs.service ("--check": check only, write nothing).',
    ...PREAMBLE,
    ...TOOL_LINES,
    ...SAME_LINES,
    'fail() { echo "gdr-doctor-acs: $*: nothing written, ACS left as the kernel set it" >&2; exit 1; }',
    'S=$(tool setpci) || fail "no trusted setpci"',
    'for g in /dev/vfio/*; do case ${g##*/} in [0-9]*) fail "IOMMU group ${g##*/} is held by VFIO (a device passed to a virtual machine)";; esac; done',
    'echo "gdr-doctor-acs: no IOMMU group is held by VFIO"',
    ...sameLines(ends, 'gdr-doctor-acs: a GPU or NIC is not the one persist-acs was set up for: nothing written'),
    'if [ -n "$(ls /sys/kernel/iommu_groups 2>/dev/null)" ]; then',
    `  for b in ${ends.map((e) => e.bdf).join(' ')}; do`,
    '    t=; [ -r "/sys/bus/pci/devices/$b/iommu_group/type" ] && read -r t < "/sys/bus/pci/devices/$b/iommu_group/type"',
    '    case $t in',
    '      identity) ;;',
    `      "") case " $(cat /proc/cmdline) " in ${PASSTHROUGH_CMDLINE}) ;; *) ${FAIL_NO_PASSTHROUGH};; esac;;`,
    '      *) fail "the IOMMU translates DMA of $b (group type $t)";;',
    '    esac',
    '  done',
    'fi',
    'echo "gdr-doctor-acs: IOMMU passthrough (or no IOMMU) for the GPUs and NICs"',
    ...sameLines(bridges, 'gdr-doctor-acs: a bridge is not the one persist-acs was set up for: nothing written'),
    'echo "gdr-doctor-acs: the GPUs, NICs and bridges are the ones it was set up for"',
    'if [ "${1:-}" = --check ]; then echo "gdr-doctor-acs: every check passed (--check: nothing written)"; exit 0; fi',
    `for b in ${bridges.map((b) => checkTarget(b).bdf).join(' ')}; do`,
    '  v=$("$S" -s "$b" ECAP_ACS+0x6.w 2>&1)',
    '  case $v in [0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;; *) fail "$b: ACSCtl cannot be read ($v)";; esac',
    '  if [ "$v" = 0000 ]; then echo "gdr-doctor-acs: $b: ACSCtl already 0000"; continue; fi',
    '  o=$("$S" -s "$b" ECAP_ACS+0x6.w=0000 2>&1) || fail "$b: setpci failed ($o)"',
    '  n=$("$S" -s "$b" ECAP_ACS+0x6.w 2>&1)',
    '  [ "$n" = 0000 ] || fail "$b: ACSCtl reads $n after writing 0000"',
    '  echo "gdr-doctor-acs: $b: ACSCtl $v -> 0000"',
    'done',
    '',
  ].join('\n');
}

const END = 'GDR_DOCTOR_FILE_END';
/** A shell test: the boot script's folder is a link or some other non-directory, never written through. */
const BOOT_DIR_NOT_A_DIRECTORY = `[ -L ${ACS_BOOT_DIR} ] || { [ -e ${ACS_BOOT_DIR} ] && [ ! -d ${ACS_BOOT_DIR} ]; }`;

/** Lines that write `content` to the temp file $t through a quoted here-document (nothing in it is expanded). */
function hereDoc(content: string): string[] {
  if (content.split('\n').includes(END)) throw new Error('the file must not contain the here-document delimiter');
  return [`cat > "$t" <<"${END}"`, ...content.replace(/\n$/, '').split('\n'), END];
}

/**
 * Writes the boot script and the unit (each a temp file in its directory, then a rename) and enables the
 * unit by its multi-user.target.wants link, as `systemctl enable` would. The boot script's checks run
 * once (`--check`) before anything is put in place: a check that fails now fails the fix, not a boot.
 */
export function persistAcsScript(unit: string, boot: string): string {
  return [
    ...replaceFileHead(ACS_BOOT_SCRIPT, `${ACS_BOOT_DIR}/.acs-boot.XXXXXX`, [
      `if ${BOOT_DIR_NOT_A_DIRECTORY}; then echo "gdr-doctor: ${ACS_BOOT_DIR} is not a directory: not changed" >&2; exit 1; fi`,
      `mkdir -p ${ACS_BOOT_DIR}`,
      `chmod 755 ${ACS_BOOT_DIR}`,
    ]),
    ...hereDoc(boot),
    'sh "$t" --check',
    'chmod 755 "$t"',
    'mv -f -- "$t" "$f"',
    'trap - EXIT',
    `f=${ACS_UNIT}`,
    'if [ -L "$f" ] || { [ -e "$f" ] && [ ! -f "$f" ]; }; then echo "gdr-doctor: $f is not a regular file: not changed" >&2; exit 1; fi',
    't=$(mktemp "/etc/systemd/system/.gdr-doctor-acs.XXXXXX")',
    'trap "rm -f -- \\"\\$t\\"" EXIT',
    ...hereDoc(unit),
    ...INSTALL_TEMP_LINES,
    `w=${ACS_WANTS}`,
    'mkdir -p "${w%/*}"',
    'ln -sfn "$f" "$w"',
    'if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi',
    `echo "gdr-doctor: wrote ${ACS_BOOT_SCRIPT} and $f, enabled it ($w)"`,
  ].join('\n');
}

/** Packages of DGX OS that already handle ACS and the IOMMU at boot (DGX OS 7 User Guide, "DGX Software Stack"). */
export const DGX_ACS_PACKAGES = ['nvidia-acs-disable', 'nv-iommu'] as const;

/** Bootloader files the kernel-parameter plan edits (acsCmdline.ts). */
export const GRUB_DEFAULT = '/etc/default/grub';
export const KERNEL_CMDLINE_FILE = '/etc/kernel/cmdline';

/**
 * Read-only, as the login user: `package <name> installed|absent|unknown` for the DGX packages, then the
 * unit, its link, the boot script and the bootloader files in READ_STATE_SCRIPT's file format; BLS entries
 * (/boot/loader/entries/*.conf) are read for the kernel-parameter plan.
 */
export const READ_UNIT_COMMAND = shCommand(
  [
    'LC_ALL=C',
    'export LC_ALL',
    `for p in ${DGX_ACS_PACKAGES.join(' ')}; do`,
    '  if command -v dpkg-query >/dev/null 2>&1; then s=$(dpkg-query -W -f="\\${Status}" "$p" 2>/dev/null); case $s in *" installed") s=installed;; *) s=absent;; esac',
    '  elif command -v rpm >/dev/null 2>&1; then if rpm -q "$p" >/dev/null 2>&1; then s=installed; else s=absent; fi',
    '  else s=unknown; fi',
    '  echo "package $p $s"',
    'done',
    ...readFilesLines([ACS_UNIT, ACS_WANTS, ACS_BOOT_SCRIPT, GRUB_DEFAULT, KERNEL_CMDLINE_FILE, '/boot/loader/entries/*.conf']),
  ].join('\n'),
);
