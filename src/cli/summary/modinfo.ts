import { Modinfo, nvidiaModuleFlavor } from '../../core/parsers/modinfo';
import { t } from '../../core/l10n';

const flavorText = (flavor: 'open' | 'proprietary'): string => (flavor === 'open' ? t('open kernel module') : t('proprietary kernel module'));

/** Module, file, version, license, dependencies and parameter names; or the "not found" answer. */
export function summarizeModinfo(value: Modinfo): string {
  if (!value.found) return t('Module {0}: not found for this kernel ({1})', value.module, value.message);
  const f = value.fields;
  const flavor = nvidiaModuleFlavor(value);
  const lines = [
    t('Module {0}', `${value.module}${f.version ? ` ${f.version}` : ''}`),
    `  file:     ${f.filename}`,
    `  license:  ${f.license ?? t('(none)')}${flavor ? ` (${flavorText(flavor)})` : ''}`,
    `  depends:  ${value.depends.length > 0 ? value.depends.join(', ') : t('(none)')}`,
  ];
  if (f.vermagic) lines.push(`  vermagic: ${f.vermagic}`);
  if (value.parm.length > 0) {
    const names = value.parm.map((p) => p.name);
    const shown = names.length > 8 ? `${names.slice(0, 8).join(', ')}, … ${t('({0} in all)', names.length)}` : names.join(', ');
    lines.push(`  parameters: ${shown}`);
  }
  return lines.join('\n');
}
