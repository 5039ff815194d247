import { OsRelease } from '../../core/parsers/osRelease';

/** Pretty name, then id, version and the distributions it derives from. */
export function summarizeOsRelease(value: OsRelease): string {
  const like = value.idLike.length > 0 ? `, like ${value.idLike.join(' ')}` : '';
  return [
    `OS: ${value.prettyName}`,
    `  id ${value.id}, version ${value.versionId ?? '(none: rolling release)'}${like}`,
  ].join('\n');
}
