// persist-acs through the kernel's own parameter, the preferred durable fix where the kernel has it:
// `pci=disable_acs_redir=<pci_dev>[;<pci_dev>…]` (Linux 5.1+, Documentation/admin-guide/kernel-parameters.txt;
// drivers/pci/pci.c pci_disable_acs_redir, applied by pci_enable_acs whenever the kernel sets ACS, also
// on pci_restore_state — which a boot-time setpci cannot follow). It clears Request/Completion Redirect
// and Egress Control only. Devices are named by `pci:<vendor>:<device>` where every bridge is one model,
// else by their path from the root port (`0000:15:01.0/00.0/01.0`), which survives bus renumbering.
// The plan edits the bootloader's command line — GRUB's /etc/default/grub (then update-grub or
// grub2-mkconfig), BLS entries' `options` lines (/boot/loader/entries, read by GRUB's blscfg and by
// systemd-boot), and /etc/kernel/cmdline (kernel-install's, for kernels installed later) — each shown as a
// diff; it takes effect at the next boot. Where none of them can be edited safely, persist-acs falls back
// to the checked boot unit (acsBoot.ts) and says why.
import { FileChange } from './types';
import { unifiedDiff } from './diff';
import { PersistState } from './persistState';
import { PciTarget, TOOL_LINES, checkTarget } from './rootChecks';
import { GRUB_DEFAULT, KERNEL_CMDLINE_FILE } from './acsBoot';
import { PREAMBLE } from './scripts';
import { t } from '../l10n';

const PARAM = 'pci=disable_acs_redir=';

/** Linux 5.1 added disable_acs_redir; `uname -r` → whether the running kernel has it (null: not read). */
export function kernelHasDisableAcsRedir(release: string | null): boolean | null {
  const m = /^(\d+)\.(\d+)/.exec(release?.trim() ?? '');
  return m ? Number(m[1]) > 5 || (Number(m[1]) === 5 && Number(m[2]) >= 1) : null;
}

/** `pci:1000:c030` when every bridge is one model, else each bridge's path from its root port, `;`-separated. */
export function acsSelector(bridges: readonly PciTarget[]): string {
  const ids = [...new Set(bridges.map((b) => checkTarget(b).id))];
  if (ids.length === 1 && ids[0] !== '-') return `pci:${ids[0]}`;
  return bridges
    .map((b) => {
      const [root, ...rest] = b.path.split('/').slice(4);
      return [root, ...rest.map((x) => x.slice(8))].join('/');
    })
    .join(';');
}

export interface CmdlineEdit {
  readonly selector: string;
  readonly changes: FileChange[];
  /** How grub.cfg is made again after /etc/default/grub changed; null when no GRUB file changed. */
  readonly regenerate: 'update-grub' | 'grub2-mkconfig' | null;
}

/** The command line with our parameter set to `selector` (an older value of it replaced). */
function withParam(cmdline: string, selector: string): string {
  const words = cmdline.split(/\s+/).filter((w) => w !== '' && !w.startsWith(PARAM));
  return [...words, `${PARAM}${selector}`].join(' ');
}

function grubEdit(content: string, selector: string): string | null {
  const lines = content.split('\n');
  const at = lines.findIndex((l) => /^GRUB_CMDLINE_LINUX=/.test(l));
  if (at < 0) return `${content}${content === '' || content.endsWith('\n') ? '' : '\n'}GRUB_CMDLINE_LINUX="${PARAM}${selector}"\n`;
  const m = /^GRUB_CMDLINE_LINUX="([^"$`\\]*)"\s*$/.exec(lines[at]);
  if (!m) return null;
  lines[at] = `GRUB_CMDLINE_LINUX="${withParam(m[1], selector)}"`;
  return lines.join('\n');
}

function blsEdit(content: string, selector: string): string | null {
  const lines = content.split('\n');
  const at = lines.findIndex((l) => /^options\s/.test(l));
  if (at < 0 || lines[at].includes('$')) return null; // `options $kernelopts`: the value lives in grubenv
  lines[at] = `options ${withParam(lines[at].replace(/^options\s+/, ''), selector)}`;
  return lines.join('\n');
}

/** The bootloader edits, or why the parameter cannot be set safely here. */
export function cmdlineEdit(state: PersistState, bridges: readonly PciTarget[], tools: { updateGrub: boolean }): CmdlineEdit | string {
  const selector = acsSelector(bridges);
  const changes: FileChange[] = [];
  const change = (path: string, before: string, after: string) => {
    if (after !== before) changes.push({ path, before, after, diff: unifiedDiff(path, before, after) });
  };
  const unreadable = Object.entries(state.files).filter(([, f]) => f.kind === 'other' || f.kind === 'symlink');
  if (unreadable.length > 0) return t('{0} cannot be read as the login user (or is a link)', unreadable.map(([p]) => p).join(', '));
  const grub = state.files[GRUB_DEFAULT];
  const bls = Object.entries(state.files).filter(([p, f]) => p.startsWith('/boot/loader/entries/') && f.kind === 'regular');
  if (grub?.kind === 'regular') {
    if (selector.includes(';') && bls.length === 0)
      return t('GRUB reads ";" in a kernel command line as the end of a command, and the bridges are of more than one model');
    const after = grubEdit(grub.content, selector);
    if (after === null) return t('{0} sets GRUB_CMDLINE_LINUX in a form gdr-doctor does not edit', GRUB_DEFAULT);
    change(GRUB_DEFAULT, grub.content, after);
  }
  for (const [path, f] of bls) {
    const after = blsEdit((f as { content: string }).content, selector);
    if (after === null) return t('{0} has no plain "options" line (or takes it from grubenv $kernelopts)', path);
    change(path, (f as { content: string }).content, after);
  }
  const kc = state.files[KERNEL_CMDLINE_FILE];
  if (kc?.kind === 'regular') change(KERNEL_CMDLINE_FILE, kc.content, `${withParam(kc.content.trim(), selector)}\n`);
  if (grub?.kind !== 'regular' && bls.length === 0) return t('neither {0} nor BLS entries (/boot/loader/entries) were found', GRUB_DEFAULT);
  const grubChanged = changes.some((c) => c.path === GRUB_DEFAULT) && bls.length === 0;
  return { selector, changes, regenerate: grubChanged ? (tools.updateGrub ? 'update-grub' : 'grub2-mkconfig') : null };
}

/**
 * `printf` lines that write `text` to `file` byte for byte: every byte outside a small safe set as a
 * `\ooo` octal escape (POSIX printf), so a host's file — quotes, `$`, backslashes, any bytes — passes
 * through the single-quoted script unchanged and nothing in it is expanded.
 */
export function printfLines(text: string, file: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const out = [`: > "${file}"`];
  for (let i = 0; i < bytes.length; i += 96) {
    const chunk = [...bytes.subarray(i, i + 96)]
      .map((b) => (/[A-Za-z0-9 ._,:/=+-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`))
      .join('');
    out.push(`printf "${chunk}" >> "${file}"`);
  }
  return out;
}

function fileLines(c: FileChange, i: number): string[] {
  if (!/^\/[A-Za-z0-9/._-]+$/.test(c.path) || c.path.split('/').includes('..')) throw new Error(`not a plain path: ${c.path}`);
  return [
    `f${i}=${c.path}`,
    `if [ -L "$f${i}" ] || [ ! -f "$f${i}" ]; then echo "gdr-doctor: $f${i} is not a regular file now: nothing changed" >&2; exit 1; fi`,
    `o${i}=$(mktemp "\${f${i}%/*}/.gdr-doctor-was.XXXXXX"); n${i}=$(mktemp "\${f${i}%/*}/.gdr-doctor-new.XXXXXX"); T="$T $o${i} $n${i}"`,
    ...printfLines(c.before ?? '', `$o${i}`),
    `cmp -s "$o${i}" "$f${i}" || { echo "gdr-doctor: $f${i} changed since it was read: nothing changed; run the fix again" >&2; exit 1; }`,
    ...printfLines(c.after, `$n${i}`),
  ];
}

/**
 * Root script: checks every file still holds what the plan read (else changes nothing), then replaces each
 * (temp file in its directory, same mode, one rename), then remakes grub.cfg where GRUB's defaults changed.
 */
export function cmdlineScript(edit: CmdlineEdit): string {
  const tool = edit.regenerate;
  return [
    ...PREAMBLE,
    ...TOOL_LINES,
    'set -e',
    'T=',
    'trap "rm -f -- \\$T" EXIT',
    // The tool that remakes grub.cfg is found (root-owned, in a system directory) before anything changes.
    ...(tool ? [`U=$(tool ${tool}) || exit 1`] : []),
    ...(tool === 'grub2-mkconfig'
      ? ['[ -f /boot/grub2/grub.cfg ] || { echo "gdr-doctor: no /boot/grub2/grub.cfg to remake: nothing changed" >&2; exit 1; }']
      : []),
    ...edit.changes.flatMap(fileLines),
    ...edit.changes.flatMap((_, i) => [
      `chmod --reference="$f${i}" "$n${i}" 2>/dev/null || chmod 644 "$n${i}"`,
      `mv -f -- "$n${i}" "$f${i}"`,
    ]),
    ...(tool === 'update-grub' ? ['"$U"'] : tool === 'grub2-mkconfig' ? ['"$U" -o /boot/grub2/grub.cfg'] : []),
    `echo "gdr-doctor: ${PARAM}${edit.selector} is on the kernel command line from the next boot"`,
  ].join('\n');
}
