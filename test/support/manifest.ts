// package.json as VS Code shows it in English: every "%key%" string replaced by its text in
// package.nls.json (the manifest's user-facing strings are localized; see package.nls.zh-cn.json).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './paths';

/** Untyped JSON, as JSON.parse gives it: tests pick the fields they check. */
type Json = ReturnType<typeof JSON.parse>;

const readJson = (file: string): Json => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'));

/** The raw manifest, with its `%key%` placeholders. */
export function rawManifest(): Json {
  return readJson('package.json');
}

/** The `%key%` placeholder a manifest string is, or undefined for a literal. */
export function nlsKey(value: string): string | undefined {
  return /^%([^%\s]+)%$/.exec(value)?.[1];
}

/** Replaces every `%key%` string of `value` (deeply) with `messages[key]`; a missing key stays as it is. */
export function resolveNls(value: unknown, messages: Record<string, string>): Json {
  if (typeof value === 'string') {
    const key = nlsKey(value);
    return key !== undefined && key in messages ? messages[key] : value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveNls(v, messages));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveNls(v, messages)]));
  return value;
}

/** package.json with its English texts (package.nls.json). */
export function englishManifest(): Json {
  return resolveNls(rawManifest(), readJson('package.nls.json'));
}
