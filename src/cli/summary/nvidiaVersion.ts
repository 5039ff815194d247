import { NvidiaVersion } from '../../core/parsers/nvidiaVersion';
import { t } from '../../core/l10n';

/** Driver version, flavour (open or proprietary kernel module), architecture and compiler. */
export function summarizeNvidiaVersion(value: NvidiaVersion): string {
  const flavor = value.openKernelModule ? t('open kernel module') : t('proprietary kernel module');
  const lines = [t('NVIDIA driver {0} ({1}, {2})', value.driverVersion, flavor, value.arch)];
  if (value.buildInfo !== '') lines.push(`  build: ${value.buildInfo}`);
  lines.push(`  compiler: ${value.gccVersion ?? t('(no GCC line)')}`);
  return lines.join('\n');
}
