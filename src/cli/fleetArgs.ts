// The fleet options of `gdr-doctor diagnose`: destinations that are host lists, a hosts file,
// fan-out, deadlines, and the login-node relay's choices, checked before anything connects.
import { expandHostList, HostListError, parseHostsFile } from '../core/parsers/hostlist';
import { isRelayTool, relayToolChoices, RelayTool } from '../core/transport';
import { UsageError } from './args';
import { CliIo } from './io';
import { t } from '../core/l10n';
import { cannotReadText } from './messages';

/** A destination is a host list when it has a range or a comma; `ssh://` and `[v6]` addresses never are. */
function isHostListArg(arg: string): boolean {
  if (arg.startsWith('ssh://')) return false;
  const host = arg.slice(arg.lastIndexOf('@') + 1);
  if (/^\[[^\]]*:[^\]]*\](:\d+)?$/.test(host)) return false;
  return arg.includes(',') || arg.includes('[');
}

/** The destinations in the order given, host lists unfolded, duplicates dropped. */
export function expandDestinations(args: readonly string[], hostsFile: string | undefined, io: CliIo): string[] {
  const out = new Set<string>();
  for (const arg of args) {
    for (const host of isHostListArg(arg) ? unfold(() => expandHostList(arg), 'host list') : [arg]) out.add(host);
  }
  if (hostsFile !== undefined) {
    const text = readHostsFile(hostsFile, io);
    for (const host of unfold(() => parseHostsFile(text), `--hosts-file ${hostsFile}`)) out.add(host);
  }
  return [...out];
}

function unfold(expand: () => string[], label: string): string[] {
  try {
    return expand();
  } catch (e) {
    if (e instanceof HostListError) throw new UsageError(t('bad {0}: {1}', label, e.message));
    throw e;
  }
}

function readHostsFile(file: string, io: CliIo): string {
  try {
    return io.readInput(file);
  } catch (e) {
    throw new UsageError(`--hosts-file: ${cannotReadText(JSON.stringify(file), e)}`);
  }
}

/** Seconds as milliseconds; undefined when the option is absent. */
export function secondsOption(options: ReadonlyMap<string, string>, name: string): number | undefined {
  const text = options.get(name);
  if (text === undefined) return undefined;
  const ms = Number(text) * 1000;
  if (!(ms > 0) || !Number.isFinite(ms)) throw new UsageError(t('{0} needs a number of seconds', name));
  return ms;
}

/** A whole number ≥ 1 (or undefined when absent), under any of the option's names. */
export function countOption(options: ReadonlyMap<string, string>, ...names: string[]): number | undefined {
  const name = names.find((n) => options.has(n));
  if (name === undefined) return undefined;
  const text = options.get(name) ?? '';
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new UsageError(t('{0} needs a whole number of at least 1', name));
  return Number(text);
}

/** `--with`, when given. */
export function relayToolOption(options: ReadonlyMap<string, string>): RelayTool | undefined {
  const tool = options.get('--with');
  if (tool === undefined) return undefined;
  if (!isRelayTool(tool)) throw new UsageError(t('--with takes {0}, not {1}', relayToolChoices(), JSON.stringify(tool)));
  return tool;
}
