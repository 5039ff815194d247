// The remote scripts of disable-acs (docs/platform.md §3). Besides constants, the only values in them are
// PCI targets read from the host's sysfs — bus address, sysfs path, vendor:device — each checked against
// a strict pattern (rootChecks.ts checkTarget: hex digits and slashes, no shell syntax can pass).
//
// The write is the one NCCL's troubleshooting guide gives, `setpci -s <bdf> ECAP_ACS+0x6.w=0000`:
// ACS Control is the 16-bit register at offset 6 of the ACS extended capability (pciutils lib/header.h
// PCI_ACS_CTRL; setpci.c names the capability ECAP_ACS). In order, as root: find setpci and lspci where
// only root can have put them (rootChecks.ts tool), check that every bridge is still the device the plan
// was made for (rootChecks.ts same), list the processes holding the GPUs and RDMA devices (holders.ts),
// then write, and read each value back: a bridge that is gone fails loudly, since setpci prints
// "Warning: No devices selected" for it and exits 0.
import { HOLDERS_EXIT, HOLDERS_LINES } from './holders';
import { PciTarget, SAME_LINES, TOOL_LINES, checkBdf, checkTarget, sameLines } from './rootChecks';
import { PREAMBLE } from './scripts';

/** Writes 0000 to ACS Control of each bridge whose control is not 0000 already, printing before and after. */
export function disableAcsScript(bridges: readonly PciTarget[], force: boolean): string {
  return [
    ...PREAMBLE,
    ...TOOL_LINES,
    ...SAME_LINES,
    ...HOLDERS_LINES,
    'S=$(tool setpci) || exit 1',
    ...sameLines(bridges, 'gdr-doctor: a bridge is not the one the plan was made for: nothing was written; diagnose the host again'),
    `FORCE=${force ? 1 : 0}`,
    `holders || exit ${HOLDERS_EXIT}`,
    'rc=0',
    `for b in ${bridges.map((b) => checkTarget(b).bdf).join(' ')}; do`,
    '  v=$("$S" -s "$b" ECAP_ACS+0x6.w 2>&1)',
    '  case $v in',
    '    [0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;',
    '    *"No devices selected"*) echo "gdr-doctor: $b: setpci selects no device ($v): not written" >&2; rc=1; continue;;',
    '    *) echo "gdr-doctor: $b: no ACS capability, skipped"; continue;;',
    '  esac',
    '  if [ "$v" = 0000 ]; then echo "gdr-doctor: $b: ACSCtl already 0000"; continue; fi',
    '  o=$("$S" -s "$b" ECAP_ACS+0x6.w=0000 2>&1) || { echo "gdr-doctor: $b: $o" >&2; rc=1; continue; }',
    '  case $o in *"No devices selected"*) echo "gdr-doctor: $b: setpci selects no device ($o): not written" >&2; rc=1; continue;; esac',
    '  n=$("$S" -s "$b" ECAP_ACS+0x6.w 2>&1)',
    '  if [ "$n" != 0000 ]; then echo "gdr-doctor: $b: ACSCtl reads $n after writing 0000" >&2; rc=1; continue; fi',
    '  echo "gdr-doctor: $b: ACSCtl $v -> $n"',
    'done',
    'exit $rc',
  ].join('\n');
}

/** lspci's reading of the bridges, as the probe's pci-acs section prints it (parsePciAcs reads it). */
export function readAcsScript(bdfs: readonly string[]): string {
  return [
    ...PREAMBLE,
    ...TOOL_LINES,
    'L=$(tool lspci) || exit 1',
    'echo "lspci-via: root"',
    `for b in ${bdfs.map(checkBdf).join(' ')}; do printf "== %s\\n" "$b"; "$L" -vvv -s "$b" 2>&1; done`,
  ].join('\n');
}
