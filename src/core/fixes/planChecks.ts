// The questions a fix plan asks of a probed host before it proposes any command: which module, can
// it load at all, how to become root, and where a module is persisted on this host. Each answer is a
// value or a refusal in words a host's owner can act on. Pure.
import { Finding } from '../diagnosis';
import { RuleContext } from '../diagnosis/context';
import { factOf } from '../diagnosis/evidence';
import { LEGACY_MODULE, NEW_MODULE, PeermemState, peermemLoadBlock } from '../diagnosis/hostState';
import { loadBlockWords } from '../diagnosis/peermemLoad';
import { ProbeReport } from '../probe/runProbe';
import { PersistState } from './persistState';
import { ETC_MODULES, MODULES_LOAD_DIR, MODULE_CONSTANTS, PersistTarget } from './scripts';
import { PeermemModule, Privilege } from './types';
import { t } from '../l10n';

export interface Refusal {
  readonly refused: string;
  readonly findings?: Finding[];
}

export function isRefusal<T>(x: T | Refusal): x is Refusal {
  return typeof x === 'object' && x !== null && 'refused' in x;
}

/** The loaded peer-memory module; null when neither is loaded; undefined when the probe could not tell. */
export function loadedModule(p: PeermemState): PeermemModule | null | undefined {
  if (p.newLoaded === true) return NEW_MODULE;
  if (p.legacyLoaded === true) return LEGACY_MODULE;
  if (p.newLoaded === null && p.legacyLoaded === null) return undefined;
  return null;
}

/** What modprobe should load: the driver's own module, unless only the legacy one exists (docs/peer-memory.md §1). */
export function moduleToLoad(p: PeermemState): PeermemModule {
  return p.newExists === false && p.legacyExists === true ? LEGACY_MODULE : NEW_MODULE;
}

/** Why loading would fail before trying, from what the probe already shows; null when it may load. */
export function cannotLoad(ctx: RuleContext, findings: readonly Finding[]): Refusal | null {
  const p = ctx.host.peermem;
  const pick = (id: string) => findings.filter((f) => f.id === id);
  if (p.newExists === false && p.legacyExists !== true) {
    return { refused: t('Neither nvidia_peermem nor nv_peer_mem exists for the running kernel (modinfo finds neither): there is nothing to load.'), findings: pick('peermem.missing') };
  }
  const block = peermemLoadBlock(ctx.host);
  if (block !== null) return { refused: t('modprobe would fail with "Invalid argument": {0}', loadBlockWords(block)), findings: pick('peermem.ofed-mismatch') };
  return null;
}

/** How the fix becomes root, from the probe's `id -u; sudo -n true`. */
export function privilegeFor(report: ProbeReport, user: string, host: string): Privilege | Refusal {
  const sudo = factOf(report, 'sudo-n');
  const said = sudo?.message ? t(' (sudo said: {0})', sudo.message) : '';
  switch (sudo?.state) {
    case 'root':
      return 'root';
    case 'passwordless':
      return 'sudo';
    case 'password-required':
      return 'sudo-password';
    case 'not-allowed':
      return { refused: t('{0} is not root and may not use sudo on {1}{2}. Log in as root or as a user allowed to run sudo.', user, host, said) };
    case 'not-installed':
      return { refused: t('{0} is not root and sudo is not installed on {1}. Log in as root.', user, host) };
    default:
      return { refused: t('Could not tell whether {0} may become root on {1}{2}: the probe\'s "id -u; sudo -n true" gave no clear answer.', user, host, said) };
  }
}

export function privilegeText(privilege: Privilege, user: string): string {
  if (privilege === 'root') return t('as root (logged in as root)');
  if (privilege === 'sudo') return t('as root through sudo -n ({0} needs no password)', user);
  return t('as root through sudo: the password of {0} is asked once and passed on stdin, never on a command line', user);
}

export interface Target {
  readonly target: PersistTarget;
  readonly path: string;
  readonly before: string | null;
}

/** modules-load.d where that directory exists (systemd); else a line in /etc/modules where that file is used. */
export function persistTarget(state: PersistState, module: PeermemModule): Target | Refusal {
  const conf = MODULE_CONSTANTS[module].confFile;
  const notRegular = (path: string) => ({ refused: t('{0} exists but is not a regular file (a symlink or something else): gdr-doctor does not replace it.', path) });
  if (state.modulesLoadDir === 'directory') {
    const f = state.files[conf] ?? { kind: 'absent' };
    if (f.kind === 'symlink' || f.kind === 'other') return notRegular(conf);
    return { target: 'modules-load.d', path: conf, before: f.kind === 'regular' ? f.content : null };
  }
  if (state.modulesLoadDir === 'other') return { refused: t('{0} exists but is not a directory: gdr-doctor does not know where this host lists boot modules.', MODULES_LOAD_DIR) };
  const etc = state.files[ETC_MODULES] ?? { kind: 'absent' };
  if (etc.kind === 'regular') return { target: 'etc-modules', path: ETC_MODULES, before: etc.content };
  if (etc.kind !== 'absent') return notRegular(ETC_MODULES);
  return {
    refused: t('This host has neither {0} nor {1}: gdr-doctor does not know how it loads modules at boot. Add {2} to its init system\'s module list by hand.', MODULES_LOAD_DIR, ETC_MODULES, MODULE_CONSTANTS[module].line),
  };
}

/** The file as the persist script leaves it: the module's line appended (after a newline if the last line lacks one). */
export function contentAfter(before: string | null, module: PeermemModule, target: PersistTarget, header: string): string {
  const line = MODULE_CONSTANTS[module].line;
  if (before === null) return target === 'modules-load.d' ? `${header}\n${line}\n` : `${line}\n`;
  return `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${line}\n`;
}
