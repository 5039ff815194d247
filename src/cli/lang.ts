// Which language the CLI speaks: `--lang zh-CN`, else the POSIX locale (LC_ALL, LC_MESSAGES, LANG, in
// the order gettext reads them: zh_CN.UTF-8 → zh-cn). English needs no bundle; `--json` stays English
// always, so scripts read the same text whatever the user's locale.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { useBundle } from '../core/l10n';
import { UsageError } from './args';

/** The locales that have a bundle in l10n/ (bundle.l10n.<locale>.json). */
const BUNDLED = ['zh-cn'] as const;

export interface LangChoice {
  /** argv without `--lang X` / `--lang=X`, for the command's own argument reader. */
  readonly argv: string[];
  /** The `--lang` value, if given. */
  readonly lang?: string;
}

/** Takes `--lang X` or `--lang=X` out of argv (before a `--`, which ends the options). */
export function takeLangOption(argv: readonly string[]): LangChoice {
  const rest: string[] = [];
  let lang: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--lang') {
      lang = argv[++i];
      if (lang === undefined) throw new UsageError('option --lang needs a value');
    } else if (arg.startsWith('--lang=')) lang = arg.slice('--lang='.length);
    else rest.push(arg);
  }
  return { argv: rest, lang };
}

/** `zh-CN`, `zh_CN.UTF-8`, `zh_CN@x` → `zh-cn`; `C`, `POSIX`, empty → undefined. */
export function normalizeLocale(value: string | undefined): string | undefined {
  const name = value?.split(/[.@]/)[0].replace(/_/g, '-').toLowerCase();
  return name && name !== 'c' && name !== 'posix' ? name : undefined;
}

/** The locale to speak: `--lang`, else the first of LC_ALL, LC_MESSAGES, LANG that is set. */
export function chooseLocale(lang: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (lang !== undefined) return normalizeLocale(lang) ?? 'en';
  return normalizeLocale([env.LC_ALL, env.LC_MESSAGES, env.LANG].find((v) => v !== undefined && v !== ''));
}

/** The bundle of a locale we ship (`zh`, `zh-cn`, `zh-sg` → zh-cn); undefined: English. */
export function bundledLocale(locale: string | undefined): string | undefined {
  if (!locale) return undefined;
  const base = locale === 'zh' || locale === 'zh-sg' || locale === 'zh-hans' ? 'zh-cn' : locale;
  return BUNDLED.find((b) => b === base);
}

/** l10n/ beside dist/ (the package), or beside src/ when the CLI runs from source. */
export function l10nDir(): string {
  const candidates = [path.join(__dirname, '../l10n'), path.join(__dirname, '../../l10n')];
  return candidates.find((d) => fs.existsSync(d)) ?? candidates[0];
}

/**
 * Loads the locale's bundle (English when none or `--json`); every run starts from English. A bundle
 * that cannot be read (a copy of dist/cli.js without l10n/ beside it) leaves English: a language is
 * no reason to refuse a diagnosis.
 */
export function applyLocale(locale: string | undefined, json: boolean): void {
  useBundle({});
  const bundled = json ? undefined : bundledLocale(locale);
  if (!bundled) return;
  try {
    const file = path.join(l10nDir(), `bundle.l10n.${bundled}.json`);
    useBundle(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>);
  } catch {
    // English, as without a bundle.
  }
}
