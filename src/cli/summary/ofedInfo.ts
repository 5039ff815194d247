import { OfedInfo } from '../../core/parsers/ofedInfo';
import { t } from '../../core/l10n';

const FLAVOR_TEXT = {
  'mlnx-ofed': 'MLNX_OFED',
  'doca-ofed': 'DOCA-Host OFED',
  other: 'unrecognised distribution',
} as const;
const flavorText = (flavor: keyof typeof FLAVOR_TEXT): string => (flavor === 'other' ? t('unrecognised distribution') : FLAVOR_TEXT[flavor]);

/** Distribution, version and what kind of OFED it is. */
export function summarizeOfedInfo(value: OfedInfo): string {
  return [
    `OFED: ${value.distribution} ${value.version} (${t('{0}, release {1}', flavorText(value.flavor), value.release)})`,
    `  ${t('as printed: {0}', value.raw)}`,
  ].join('\n');
}
