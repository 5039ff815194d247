// What a proof needs from a host besides the diagnosis: perftest's ib_write_bw (and whether it was
// built with CUDA and CUDA dma-buf: docs/perftest.md §3), numactl and timeout. Read in the same round
// trip as the probe (two more read-only commands of the probe script), so preconditions are known
// before anything runs. Also the package to install where perftest is missing.
import { factOf } from '../diagnosis/evidence';
import { parsePerftestHelp } from '../parsers/perftest';
import type { ProbeCommandSpec } from '../probe/commands';
import { ProbeReport } from '../probe/runProbe';
import { t } from '../l10n';

export const PERFTEST_CHECK_ID = 'perftest';

/** Added to the probe's commands for a proof; constant strings, like the probe's own. */
export const PROVE_CHECK_COMMANDS: readonly ProbeCommandSpec[] = [
  {
    id: PERFTEST_CHECK_ID,
    command:
      'for t in ib_write_bw numactl timeout; do p=$(command -v "$t" 2>/dev/null) || p=-; printf \'which %s %s\\n\' "$t" "$p"; done; ' +
      'if command -v ib_write_bw >/dev/null 2>&1; then ib_write_bw --help 2>&1 | grep -e use_cuda; fi; exit 0',
    timeoutS: 10,
  },
];

export interface PerftestCheck {
  /** Where each tool is; null: not installed (or not on the login PATH). */
  readonly ibWriteBw: string | null;
  readonly numactl: string | null;
  readonly timeout: string | null;
  readonly cuda: boolean;
  /** --use_cuda_bus_id: the GPU can be named by its PCI address. */
  readonly cudaBusId: boolean;
  readonly cudaDmabuf: boolean;
  /** The `--help` lines that name CUDA, as printed. */
  readonly helpLines: string[];
}

/** The check's answer; null when it did not run (an older report, a lost connection). */
export function readPerftestCheck(report: ProbeReport): PerftestCheck | null {
  const c = report.commands.find((x) => x.id === PERFTEST_CHECK_ID);
  if (!c || c.state === 'not-run' || c.exitCode !== 0) return null;
  const which = new Map<string, string | null>();
  const help: string[] = [];
  for (const line of c.stdout.split('\n')) {
    const m = /^which (\S+) (.+)$/.exec(line);
    if (m) which.set(m[1], m[2] === '-' ? null : m[2]);
    else if (line.trim() !== '') help.push(line);
  }
  if (!which.has('ib_write_bw')) return null;
  const flags = parsePerftestHelp(help.join('\n'));
  return {
    ibWriteBw: which.get('ib_write_bw') ?? null,
    numactl: which.get('numactl') ?? null,
    timeout: which.get('timeout') ?? null,
    ...flags,
    helpLines: help,
  };
}

/** Where the GPU modes need more than the distribution's package (docs/perftest.md §3). */
export const cudaBuildHint = (): string =>
  t(
    'distribution packages are built without CUDA: for the GPU modes build perftest from linux-rdma/perftest with CUDA (./autogen.sh && ./configure CUDA_H_PATH=/usr/local/cuda/include/cuda.h && make)',
  );

/** How to install perftest on the host's distribution (from /etc/os-release), in words. */
export function perftestInstallHint(report: ProbeReport): string {
  const os = factOf(report, 'os-release');
  const ids = os ? [os.id, ...os.idLike] : [];
  const install = ids.some((i) => i === 'debian' || i === 'ubuntu')
    ? 'apt install perftest'
    : ids.some((i) => ['rhel', 'centos', 'fedora', 'rocky', 'almalinux', 'ol'].includes(i))
      ? 'dnf install perftest'
      : ids.some((i) => i.startsWith('suse') || i === 'sles' || i === 'opensuse')
        ? 'zypper install perftest'
        : null;
  return install
    ? `${t('install it with {0}', `\`${install}\``)}${os ? ` (${os.prettyName})` : ''}`
    : t('install the perftest package of the distribution');
}
