// Findings about an NCCL job from its log, in the shape of a host diagnosis's findings (so the
// CLI and the editor show both the same way): the verdict, the Socket fallback, HCAs without GPU
// Direct RDMA, NCCL's WARN lines, mixed versions, cut lines.
import { Finding, sortFindings } from '../diagnosis/finding';
import type { SummaryState } from './summaryState';
import type { NcclLogRef, NcclLogSummary } from './types';
import { t } from '../l10n';

const CONNECTION_SOURCE =
  'NVIDIA/nccl src/transport/net.cc (connection lines "via NET/<net>/<dev>[/GDRDMA]"), src/graph/paths.cc ncclTopoCheckGdr';
const HCA_SOURCE = 'NVIDIA/nccl src/graph/topo.cc ("GPU Direct RDMA Enabled|Disabled for HCA"), src/transport/net_ib gdr support';
const SHOWN_EVIDENCE = 5;

type SummaryWithoutFindings = Omit<NcclLogSummary, 'findings'>;

export function ncclLogFindings(s: SummaryWithoutFindings, state: SummaryState): Finding[] {
  return sortFindings([
    ...verdictFindings(s),
    ...socketFindings(s),
    ...hcaFindings(s),
    ...warnFindings(s, state.warnLines),
    ...versionFindings(state),
    ...cutFindings(state),
    ...rayFindings(s),
    ...cappedFindings(s, state),
  ]);
}

function finding(
  id: string,
  severity: Finding['severity'],
  title: string,
  detail: string,
  evidence: NcclLogRef[],
  source: string,
): Finding {
  return { id, severity, title, detail, evidence: evidence.slice(0, SHOWN_EVIDENCE).map(evidenceText), fixes: [], source };
}

export function evidenceText(ref: NcclLogRef): string {
  return `${ref.file}:${ref.line}: ${ref.text}`;
}

function verdictFindings(s: SummaryWithoutFindings): Finding[] {
  const { total, gdrdma } = s.netConnections;
  const without = s.hosts.filter((h) => h.netConnections.total > h.netConnections.gdrdma);
  const evidence = without.flatMap((h) => h.gdrOffReasons.slice(0, 1).map((r) => r.evidence));
  switch (s.verdict) {
    case 'gdr':
      return [
        finding(
          'nccl-log.gdrdma',
          'info',
          t('GPU Direct RDMA used on all {0} network connections', total),
          t('Every connection NCCL set up through the network names /GDRDMA: the NIC reads and writes GPU memory directly.'),
          [],
          CONNECTION_SOURCE,
        ),
      ];
    case 'no-gdr':
      return [
        finding(
          'nccl-log.no-gdrdma',
          'error',
          t('GPU Direct RDMA used on none of {0} network connections', total),
          `${t('No network connection names /GDRDMA: every transfer between hosts is staged through host memory.')} ${reasonsHint(without.length)}`,
          evidence,
          CONNECTION_SOURCE,
        ),
      ];
    case 'mixed':
      return [
        finding(
          'nccl-log.partial-gdrdma',
          'warning',
          t('GPU Direct RDMA used on {0} of {1} network connections', gdrdma, total),
          `${partialGdrdmaText(total - gdrdma, without)} ${reasonsHint(without.length)}`,
          evidence,
          CONNECTION_SOURCE,
        ),
      ];
    case 'no-net':
      return [
        finding(
          'nccl-log.no-network',
          'info',
          t('No connection through the network'),
          t(
            'Every connection line in this log stays inside a host (P2P, SHM): a single-node job, where GPU Direct RDMA does not come into play, or a log cut before the network connections.',
          ),
          [],
          CONNECTION_SOURCE,
        ),
      ];
    default:
      return [
        finding(
          'nccl-log.no-connections',
          'info',
          t('No connection lines in this log'),
          t(
            'The log has no "Channel … via …" lines: it was cut before NCCL connected its rings, or NCCL_DEBUG_SUBSYS left out INIT/NET. Run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET.',
          ),
          [],
          CONNECTION_SOURCE,
        ),
      ];
  }
}

/** Some connections name /GDRDMA and `missing` do not, on the hosts named. */
function partialGdrdmaText(missing: number, without: readonly { readonly name: string }[]): string {
  return t('Some network connections name /GDRDMA and {0} do not (on {1}).', missing, without.map((h) => h.name).join(', '));
}

function reasonsHint(hosts: number): string {
  return hosts > 0 ? t('The reasons NCCL gave are listed per host.') : '';
}

function socketFindings(s: SummaryWithoutFindings): Finding[] {
  const hosts = s.hosts.filter((h) => h.network === 'Socket');
  if (hosts.length === 0 && s.network !== 'Socket') return [];
  const evidence = hosts.flatMap((h) =>
    h.gdrOffReasons
      .filter((r) => /^(Using network Socket|NET\/\S+ : No device|NET\/Socket)/.test(r.reason))
      .slice(0, 1)
      .map((r) => r.evidence),
  );
  const names = hosts.map((h) => h.name).join(', ');
  return [
    finding(
      'nccl-log.socket',
      'warning',
      t('NCCL used TCP sockets, not RDMA'),
      names
        ? t(
            '"Using network Socket" on {0}: no InfiniBand/RoCE transport was usable (no device, NCCL_IB_DISABLE, a missing verbs library), so there is no GPU Direct RDMA either.',
            names,
          )
        : t(
            '"Using network Socket": no InfiniBand/RoCE transport was usable (no device, NCCL_IB_DISABLE, a missing verbs library), so there is no GPU Direct RDMA either.',
          ),
      evidence,
      'NVIDIA/nccl src/init.cc ("Using network %s"), src/transport/net_socket.cc',
    ),
  ];
}

function hcaFindings(s: SummaryWithoutFindings): Finding[] {
  // A Socket interface is listed with GDR off (NCCL says so for every one): not a finding of its own.
  const disabled = s.hosts.flatMap((h) => h.hcas.filter((x) => x.gdr === false && x.net !== 'Socket').map((x) => ({ host: h, hca: x })));
  if (disabled.length === 0) return [];
  const names = [...new Set(disabled.map((d) => d.hca.name))];
  const evidence = disabled.flatMap((d) =>
    d.host.gdrOffReasons
      .filter((r) => r.reason.startsWith(`HCA ${d.hca.name}:`))
      .slice(0, 1)
      .map((r) => r.evidence),
  );
  return [
    finding(
      'nccl-log.hca-gdr-disabled',
      'warning',
      names.length === 1
        ? t('GPU Direct RDMA disabled for HCA {0}', names[0])
        : t('GPU Direct RDMA disabled for HCAs {0}', names.join(', ')),
      t(
        'NCCL found no way for these NICs to reach GPU memory: no peer-memory module (nvidia-peermem) it recognises and no usable DMA-BUF. Run `gdr-doctor diagnose` on the host to see which one is missing.',
      ),
      evidence,
      HCA_SOURCE,
    ),
  ];
}

function warnFindings(s: SummaryWithoutFindings, count: number): Finding[] {
  if (s.warnings.length === 0) return [];
  const distinct = count > s.warnings.reduce((a, w) => a + w.count, 0) ? `${s.warnings.length}+` : String(s.warnings.length);
  return [
    finding(
      'nccl-log.warn',
      'warning',
      count === 1 ? t('NCCL printed 1 WARN line') : t('NCCL printed {0} WARN lines', count),
      t(
        '{0} distinct: {1}',
        distinct,
        `${s.warnings
          .slice(0, 3)
          .map((w) => `"${w.text}"`)
          .join('; ')}${s.warnings.length > 3 ? '; …' : ''}`,
      ),
      s.warnings.map((w) => w.first),
      'NVIDIA/nccl src/debug.cc (WARN)',
    ),
  ];
}

function versionFindings(state: SummaryState): Finding[] {
  if (state.versions.size < 2) return [];
  const versions = [...state.versions.keys()];
  return [
    finding(
      'nccl-log.versions',
      'warning',
      t('Ranks run different NCCL versions: {0}', versions.join(', ')),
      t('Every rank of a job should load the same NCCL: a mismatch can hang or fail at init ("Mismatched NCCL version detected").'),
      [...state.versions.values()].map((v) => v.ref),
      'NVIDIA/nccl src/init.cc (version check between ranks)',
    ),
  ];
}

function cutFindings(state: SummaryState): Finding[] {
  if (state.cutLines === 0 || state.firstCut === null) return [];
  return [
    finding(
      'nccl-log.cut-lines',
      'info',
      state.cutLines === 1 ? t('1 NCCL line was cut') : t('{0} NCCL lines were cut', state.cutLines),
      t('Another process wrote into the middle of these lines, or the file ends inside one: what they say may be incomplete.'),
      [state.firstCut],
      'gdr-doctor NCCL log reader',
    ),
  ];
}

function rayFindings(s: SummaryWithoutFindings): Finding[] {
  if (s.rayFolded === 0) return [];
  return [
    finding(
      'nccl-log.ray-folded',
      'info',
      t('Ray folded {0} NCCL connection lines into others', s.rayFolded),
      t(
        'Ray prints one line for lines that differ only in words holding digits ("[repeated Nx across cluster]"), so the ranks, devices and NICs of the folded lines, and whether they named /GDRDMA, are gone: the counts here are of the lines printed. Run with RAY_DEDUP_LOGS=0 for every line.',
      ),
      [],
      'ray-project/ray python/ray/_private/ray_logging/__init__.py (_canonicalise_log_line, DedupState.formatted)',
    ),
  ];
}

function cappedFindings(s: SummaryWithoutFindings, state: SummaryState): Finding[] {
  const limits = state.budget.limits;
  const over = Object.entries(s.dropped).filter(([, n]) => n > 0);
  if (over.length === 0) return [];
  return [
    finding(
      'nccl-log.capped',
      'info',
      t('The summary leaves out part of this log: {0}', over.map(([kind, n]) => `${kind} ${n}`).join(', ')),
      t(
        'The summary keeps at most {0} hosts, {1} GPUs, {2} HCAs and {3} ranks; the numbers say how many lines named one more. Their connections still count in the totals and the verdict.',
        limits.hosts,
        limits.gpus,
        limits.hcas,
        limits.ranks,
      ),
      [],
      'gdr-doctor NCCL log reader (src/core/ncclLog/budget.ts)',
    ),
  ];
}
