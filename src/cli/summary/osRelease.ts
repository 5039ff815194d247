import { OsRelease } from '../../core/parsers/osRelease';
import { t } from '../../core/l10n';

/** Pretty name, then id, version and the distributions it derives from. */
export function summarizeOsRelease(value: OsRelease): string {
  const like = value.idLike.length > 0 ? t(', like {0}', value.idLike.join(' ')) : '';
  return [
    `OS: ${value.prettyName}`,
    `  ${t('id {0}, version {1}', value.id, value.versionId ?? t('(none: rolling release)'))}${like}`,
  ].join('\n');
}
