// A small argument reader for the CLI: flags declared per command, everything else positional.
// Unknown flags are usage errors (exit 64) rather than silently ignored.
import { t } from '../core/l10n';

export class UsageError extends Error {}

export interface ParsedArgs {
  readonly positional: string[];
  readonly flags: ReadonlySet<string>;
  readonly options: ReadonlyMap<string, string>;
  /** Every value of every option, in order (for options that may repeat: `--nccl-env A=1 --nccl-env B=2`). */
  readonly lists: ReadonlyMap<string, readonly string[]>;
}

export interface ArgSpec {
  /** Flags without a value, e.g. `--json`. */
  readonly flags?: readonly string[];
  /** Options that take a value, e.g. `-F FILE` or `--timeout=S`. */
  readonly options?: readonly string[];
}

export function parseArgs(argv: readonly string[], spec: ArgSpec): ParsedArgs {
  const positional: string[] = [];
  const flags = new Set<string>();
  const options = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const knownFlags = new Set(['--help', '-h', ...(spec.flags ?? [])]);
  const knownOptions = new Set(spec.options ?? []);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    // A lone "-" means stdin, so it is positional, not a flag.
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (knownOptions.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(t('option {0} needs a value', name));
      options.set(name, value);
      lists.set(name, [...(lists.get(name) ?? []), value]);
    } else if (knownFlags.has(name) && eq < 0) {
      flags.add(name === '-h' ? '--help' : name);
    } else {
      throw new UsageError(t('unknown option {0}', JSON.stringify(arg)));
    }
  }
  return { positional, flags, options, lists };
}
