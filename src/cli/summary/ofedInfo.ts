import { OfedInfo } from '../../core/parsers/ofedInfo';

const FLAVOR_TEXT = {
  'mlnx-ofed': 'MLNX_OFED',
  'doca-ofed': 'DOCA-Host OFED',
  other: 'unrecognised distribution',
} as const;

/** Distribution, version and what kind of OFED it is. */
export function summarizeOfedInfo(value: OfedInfo): string {
  return [
    `OFED: ${value.distribution} ${value.version} (${FLAVOR_TEXT[value.flavor]}, release ${value.release})`,
    `  as printed: ${value.raw}`,
  ].join('\n');
}
