// The findings of an NCCL log compared with a host: GPU Direct RDMA predicted but not used
// (nccl.gdr-not-used), used where the model says no (nccl.gdr-not-predicted: the model may be missing
// something), a NIC the model does not give the GPU (nccl.unexpected-nic), the Socket fallback on a
// host with RDMA ports (nccl.socket-fallback); else that both agree, or that nothing could be compared.
// Each quotes both sides: the model's verdict for the GPU and the log's line.
import type { Finding, Severity } from '../diagnosis/finding';
import { sortFindings } from '../diagnosis/finding';
import type { RdmaPortView } from '../diagnosis/rdmaPorts';
import type { ComparedGpu, NcclHostComparison } from './compareTypes';
import { COMPARE_TEXT } from './compareText';
import { evidenceText } from './findings';
import type { NcclLogHost, NcclLogRef } from './types';

type Comparison = Omit<NcclHostComparison, 'findings'>;

const MODEL_SOURCE = 'gdr-doctor NCCL model (docs/nccl-gdr.md: NVIDIA/nccl src/graph/paths.cc ncclTopoCheckGdr, ncclTopoComputePaths)';
const LOG_SOURCE = 'NVIDIA/nccl src/transport/net.cc (connection lines "via NET/<net>/<dev>[(<proxy rank>)][/GDRDMA]")';
/** GPUs quoted per finding (both sides each); the title lists them all. */
const QUOTED_GPUS = 3;

export function compareFindings(c: Comparison, logHost: NcclLogHost, hostPorts: readonly RdmaPortView[]): Finding[] {
  const full = { ...c, findings: [] };
  const found = [
    ...socketFallback(full, logHost, hostPorts),
    ...gdrNotUsed(full, logHost),
    ...gdrNotPredicted(full),
    ...unexpectedNic(full, hostPorts),
  ];
  if (found.length > 0) return sortFindings(found);
  const judged = c.gpus.filter((g) => g.gdrAgrees !== null);
  if (judged.length === 0) return [finding('nccl.not-compared', 'info', COMPARE_TEXT.notCompared(full), [], LOG_SOURCE)];
  return [
    finding(
      'nccl.agrees',
      'info',
      COMPARE_TEXT.agrees(full, judged),
      judged.slice(0, QUOTED_GPUS).flatMap((g) => bothSides(full, g, 'gdr')),
      MODEL_SOURCE,
    ),
  ];
}

function finding(id: string, severity: Severity, text: { title: string; detail: string }, evidence: string[], source: string): Finding {
  return { id, severity, title: text.title, detail: text.detail, evidence, fixes: [], source };
}

/** The model's verdict for the GPU, then the log's line that shows what NCCL did. */
function bothSides(c: NcclHostComparison, g: ComparedGpu, shown: 'gdr' | 'no-gdr'): string[] {
  const line = shown === 'gdr' ? (g.log.firstGdrdma ?? g.log.firstWithoutGdrdma) : (g.log.firstWithoutGdrdma ?? g.log.firstGdrdma);
  return [COMPARE_TEXT.modelEvidence(c, g), ...(line ? [evidenceText(line)] : [])];
}

function gdrNotUsed(c: NcclHostComparison, logHost: NcclLogHost): Finding[] {
  const gpus = c.gpus.filter((g) => g.gdrAgrees === false && g.way !== 'none');
  if (gpus.length === 0) return [];
  const reason = logHost.gdrOffReasons[0];
  const severity: Severity = gpus.some((g) => g.log.netConnections.gdrdma === 0) ? 'error' : 'warning';
  const evidence = [
    ...gpus.slice(0, QUOTED_GPUS).flatMap((g) => bothSides(c, g, 'no-gdr')),
    ...(reason ? [evidenceText(reason.evidence)] : []),
  ];
  return [
    finding(
      'nccl.gdr-not-used',
      severity,
      COMPARE_TEXT.gdrNotUsed(c, gpus, reason?.reason ?? null),
      evidence,
      `${MODEL_SOURCE}; ${LOG_SOURCE}`,
    ),
  ];
}

function gdrNotPredicted(c: NcclHostComparison): Finding[] {
  const gpus = c.gpus.filter((g) => g.gdrAgrees === false && g.way === 'none');
  if (gpus.length === 0) return [];
  const evidence = gpus.slice(0, QUOTED_GPUS).flatMap((g) => bothSides(c, g, 'gdr'));
  return [finding('nccl.gdr-not-predicted', 'info', COMPARE_TEXT.gdrNotPredicted(c, gpus), evidence, `${MODEL_SOURCE}; ${LOG_SOURCE}`)];
}

function unexpectedNic(c: NcclHostComparison, hostPorts: readonly RdmaPortView[]): Finding[] {
  const gpus = c.gpus.filter((g) => g.unexpectedNics.length > 0);
  if (gpus.length === 0) return [];
  const devices = new Set(hostPorts.map((p) => p.device));
  const notOnHost = devices.size === 0 ? [] : [...new Set(gpus.flatMap((g) => g.unexpectedNics))].filter((n) => !devices.has(n));
  const evidence = gpus.slice(0, QUOTED_GPUS).flatMap((g) => bothSides(c, g, 'gdr'));
  return [
    finding(
      'nccl.unexpected-nic',
      'warning',
      COMPARE_TEXT.unexpectedNic(c, gpus, notOnHost),
      evidence,
      `${MODEL_SOURCE} (section 5, which NICs a GPU uses); ${LOG_SOURCE}`,
    ),
  ];
}

function socketFallback(c: NcclHostComparison, logHost: NcclLogHost, hostPorts: readonly RdmaPortView[]): Finding[] {
  if (logHost.network !== 'Socket' || hostPorts.length === 0) return [];
  const nics = hostPorts.map((p) => `${p.device}:${p.port}${p.linkLayer ? ` ${p.linkLayer}` : ''}${p.active === true ? ' active' : ''}`);
  const logLines: NcclLogRef[] = logHost.gdrOffReasons.map((r) => r.evidence).slice(0, 3);
  const evidence = [
    ...logLines.map(evidenceText),
    ...hostPorts.slice(0, 4).map((p) => {
      const reader = p.source === 'ibv' ? 'ibv_devinfo -v' : 'sysfs';
      return `${c.host} (${reader}): ${p.device} port ${p.port}: ${p.state ?? 'state not read'}${p.linkLayer ? `, ${p.linkLayer}` : ''}`;
    }),
  ];
  return [
    finding(
      'nccl.socket-fallback',
      'error',
      COMPARE_TEXT.socketFallback(c, nics),
      evidence,
      'NVIDIA/nccl src/init.cc ("Using network %s"), src/transport/net_ib.cc (ncclIbInit); gdr-doctor probe (ibv_devinfo -v, sysfs)',
    ),
  ];
}
