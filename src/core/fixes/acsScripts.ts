// The remote scripts of disable-acs and persist-acs (docs/platform.md §3). Besides this file's
// constants, the only values in them are bus addresses read from the host's sysfs, each checked here
// against the strict `dddd:bb:dd.f` pattern (hex digits, no shell syntax can pass) before use, and the
// setpci path the probe found, checked as a plain absolute path.
//
// The write is the one NCCL's troubleshooting guide gives, `setpci -s <bdf> ECAP_ACS+0x6.w=0000`:
// ACS Control is the 16-bit register at offset 6 of the ACS extended capability (pciutils lib/header.h
// PCI_ACS_CTRL; setpci.c names the capability ECAP_ACS).
import { INSTALL_TEMP_LINES, PREAMBLE, readFilesLines, replaceFileHead, shCommand } from './scripts';

export const ACS_UNIT = '/etc/systemd/system/gdr-doctor-acs.service';
export const ACS_WANTS = '/etc/systemd/system/multi-user.target.wants/gdr-doctor-acs.service';

const BDF = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

export function checkBdfs(bdfs: readonly string[]): string[] {
  for (const b of bdfs) if (!BDF.test(b)) throw new Error(`not a PCI bus address: ${JSON.stringify(b)}`);
  return [...bdfs];
}

export function checkSetpciPath(p: string): string {
  if (!/^\/[A-Za-z0-9/._-]+\/setpci$/.test(p)) throw new Error(`not a setpci path: ${JSON.stringify(p)}`);
  return p;
}

/**
 * Writes 0000 to ACS Control of each bridge whose control is not 0000 already, printing the value before
 * and after; a bridge without the capability is skipped (setpci cannot find ECAP_ACS there).
 */
export function disableAcsScript(bdfs: readonly string[]): string {
  return [
    ...PREAMBLE,
    'rc=0',
    `for b in ${checkBdfs(bdfs).join(' ')}; do`,
    '  v=$(setpci -s "$b" ECAP_ACS+0x6.w 2>/dev/null) || { echo "gdr-doctor: $b: no ACS capability, skipped"; continue; }',
    '  if [ "$v" = 0000 ]; then echo "gdr-doctor: $b: ACSCtl already 0000"; continue; fi',
    '  setpci -s "$b" ECAP_ACS+0x6.w=0000 || { rc=1; continue; }',
    '  echo "gdr-doctor: $b: ACSCtl $v -> $(setpci -s "$b" ECAP_ACS+0x6.w)"',
    'done',
    'exit $rc',
  ].join('\n');
}

/** lspci's reading of the bridges, as the probe's pci-acs section prints it (parsePciAcs reads it). */
export function readAcsScript(bdfs: readonly string[]): string {
  return [
    ...PREAMBLE,
    'echo "lspci-via: root"',
    `for b in ${checkBdfs(bdfs).join(' ')}; do printf "== %s\\n" "$b"; lspci -vvv -s "$b" 2>&1; done`,
  ].join('\n');
}

/** The oneshot unit that repeats the writes at boot; `-` lets one bridge's failure not stop the others (systemd.service(5)). */
export function acsUnit(bdfs: readonly string[], setpci: string): string {
  const path = checkSetpciPath(setpci);
  return [
    '# Written by gdr-doctor persist-acs: turns off PCIe Access Control Services on the bridges between',
    '# GPUs and RDMA NICs at every boot, as `gdr-doctor fix <host> disable-acs` does once (NCCL',
    '# troubleshooting, "PCI Access Control Services"). Bare metal only: keep ACS in VMs and on hosts that',
    '# pass devices through. Undo: rm /etc/systemd/system/multi-user.target.wants/gdr-doctor-acs.service',
    '# /etc/systemd/system/gdr-doctor-acs.service; systemctl daemon-reload; reboot.',
    '[Unit]',
    'Description=Disable PCIe ACS on the bridges between GPUs and RDMA NICs (gdr-doctor)',
    '',
    '[Service]',
    'Type=oneshot',
    ...checkBdfs(bdfs).map((b) => `ExecStart=-${path} -s ${b} ECAP_ACS+0x6.w=0000`),
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

const UNIT_END = 'GDR_DOCTOR_UNIT_END';

/**
 * Writes the unit (temp file in the same directory, then rename), and enables it as `systemctl enable`
 * would, by its multi-user.target.wants link; reloads systemd where it runs. The content goes through a
 * quoted here-document, so the shell expands nothing in it.
 */
export function persistAcsScript(unit: string): string {
  if (unit.split('\n').includes(UNIT_END)) throw new Error('the unit must not contain the here-document delimiter');
  return [
    ...replaceFileHead(ACS_UNIT, '/etc/systemd/system/.gdr-doctor-acs.XXXXXX'),
    `w=${ACS_WANTS}`,
    `cat > "$t" <<"${UNIT_END}"`,
    ...unit.replace(/\n$/, '').split('\n'),
    UNIT_END,
    ...INSTALL_TEMP_LINES,
    'mkdir -p "${w%/*}"',
    'ln -sfn "$f" "$w"',
    'if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi',
    'echo "gdr-doctor: wrote $f and enabled it ($w)"',
  ].join('\n');
}

/** Read-only, as the login user: the unit file and its wants link, in READ_STATE_SCRIPT's file format (persistState.ts). */
export const READ_UNIT_COMMAND = shCommand(['LC_ALL=C', 'export LC_ALL', ...readFilesLines([ACS_UNIT, ACS_WANTS])].join('\n'));
