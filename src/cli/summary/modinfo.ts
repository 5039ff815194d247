import { Modinfo, nvidiaModuleFlavor } from '../../core/parsers/modinfo';

const FLAVOR_TEXT = { open: 'open kernel module', proprietary: 'proprietary kernel module' } as const;

/** Module, file, version, license, dependencies and parameter names; or the "not found" answer. */
export function summarizeModinfo(value: Modinfo): string {
  if (!value.found) return `Module ${value.module}: not found for this kernel (${value.message})`;
  const f = value.fields;
  const flavor = nvidiaModuleFlavor(value);
  const lines = [
    `Module ${value.module}${f.version ? ` ${f.version}` : ''}`,
    `  file:     ${f.filename}`,
    `  license:  ${f.license ?? '(none)'}${flavor ? ` (${FLAVOR_TEXT[flavor]})` : ''}`,
    `  depends:  ${value.depends.length > 0 ? value.depends.join(', ') : '(none)'}`,
  ];
  if (f.vermagic) lines.push(`  vermagic: ${f.vermagic}`);
  if (value.parm.length > 0) {
    const names = value.parm.map((p) => p.name);
    const shown = names.length > 8 ? `${names.slice(0, 8).join(', ')}, … (${names.length} in all)` : names.join(', ');
    lines.push(`  parameters: ${shown}`);
  }
  return lines.join('\n');
}
