import { NvidiaVersion } from '../../core/parsers/nvidiaVersion';

/** Driver version, flavour (open or proprietary kernel module), architecture and compiler. */
export function summarizeNvidiaVersion(value: NvidiaVersion): string {
  const flavor = value.openKernelModule ? 'open kernel module' : 'proprietary kernel module';
  const lines = [`NVIDIA driver ${value.driverVersion} (${flavor}, ${value.arch})`];
  if (value.buildInfo !== '') lines.push(`  build: ${value.buildInfo}`);
  lines.push(`  compiler: ${value.gccVersion ?? '(no GCC line)'}`);
  return lines.join('\n');
}
