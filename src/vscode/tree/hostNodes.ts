// The Hosts tree's host part, built from the host model on demand (the element types are in nodes.ts);
// no VS Code import (treeItems.ts renders these).
import { Finding, GpuNicPair, pathLabel, shortVerdict } from '../../core/diagnosis';
import { factOf } from '../../core/diagnosis/evidence';
import { readHostState } from '../../core/diagnosis/hostState';
import { rdmaPorts } from '../../core/diagnosis/rdmaPorts';
import { formatCpuList } from '../../core/parsers/cpuList';
import { commandStatus } from '../../core/probe/commandStatus';
import { commandTitle } from '../../core/probe/commandTitle';
import { ProbeReport } from '../../core/probe/runProbe';
import { DiagnosedOutcome, HostModel } from '../hosts/hostModel';
import { moduleRows } from './moduleRows';
import { ncclLogChildren, ncclLogGroupNodes } from './ncclLogNodes';
import { proofGroup, proofRows } from './proofRows';
import { watchRow } from './watchRow';
import type { GroupId, HostsNode, Tone } from './nodes';
import { t } from '../../core/l10n';
import { dateTime, timeOfDay } from '../displayLocale';

export function rootNodes(model: HostModel): HostsNode[] {
  return model.hosts().map((h) => ({ kind: 'host', id: h.id, hostId: h.id }));
}

export function childNodes(node: HostsNode, model: HostModel): HostsNode[] {
  if (node.kind === 'nic') return node.ports;
  if (node.kind === 'finding') return findingNodes(node.id, node.hostId, node.finding.children ?? []);
  const last = model.status(node.hostId).lastDiagnosed;
  // Children's ids extend the parent's, so a host shown at the root and under a fleet stays unique.
  const { proof, watch } = model.status(node.hostId);
  if (node.kind === 'host')
    return [
      statusNode(node.hostId, model, node.id),
      ...(watch ? [watchRow(node.id, node.hostId, watch)] : []),
      ...(last ? groupNodes(node.id, node.hostId, last) : []),
      ...(proof ? [proofGroup(node.id, node.hostId, proof)] : []),
      ...ncclLogGroupNodes(node.id, node.hostId, model),
    ];
  if (node.kind === 'group' && node.group === 'ncclLog') return ncclLogChildren(node.id, node.hostId, model);
  if (node.kind === 'group' && node.group === 'proof') return proof ? proofRows(node.id, node.hostId, proof) : [];
  if (node.kind !== 'group' || !last) return [];
  return groupChildren(node.id, node.hostId, node.group, last);
}

export function statusNode(hostId: string, model: HostModel, scope = hostId): HostsNode {
  const s = model.status(hostId);
  const node = (label: string, tone: Tone, tooltip: string): HostsNode => ({
    kind: 'status',
    id: `${scope}/status`,
    hostId,
    label,
    tone,
    tooltip,
  });
  if (s.working) return node(t('Diagnosing…'), 'working', t('Collecting every diagnostic in one round trip.'));
  const last = s.last;
  if (!last) return node(t('Not diagnosed yet'), 'idle', t('Nothing connects until you run Diagnose.'));
  // The time fits the sidebar; the full date is in the tooltip.
  const when = timeOfDay(last.finishedAt);
  const date = dateTime(last.finishedAt);
  if (last.kind === 'failed') {
    const label = last.step === 'host-key' ? t('Refused: host key not trusted — {0}', when) : t('Unreachable ({0}) — {1}', last.step, when);
    return node(label, 'error', `${date}: ${last.message}`);
  }
  const r = last.report;
  const partial = r.connectionLost ? t(' · connection lost, partial') : r.timedOut ? t(' · deadline hit, partial') : '';
  // Neutral when complete: reaching a host says nothing about GPUDirect RDMA (the host's icon does).
  return node(
    t('Diagnosed {0} in {1}{2}', when, formatMs(r.durationMs), partial),
    partial ? 'warning' : 'done',
    t('Diagnosed {0}: {1} commands collected from {2} in {3}.', date, r.commands.length, r.host, formatMs(r.durationMs)),
  );
}

function groupNodes(scope: string, hostId: string, d: DiagnosedOutcome): HostsNode[] {
  const f = d.diagnosis.findings;
  const errors = f.filter((x) => x.severity === 'error').length;
  const ports = rdmaPorts(d.report);
  const numa = factOf(d.report, 'numactl');
  const group = (g: GroupId, label: string, description: string): HostsNode => ({
    kind: 'group',
    id: `${scope}/${g}`,
    hostId,
    group: g,
    label,
    description,
  });
  return [
    group(
      'findings',
      t('Findings'),
      f.length === 0
        ? t('none')
        : errors === 0
          ? `${f.length}`
          : errors > 1
            ? t('{0}, {1} errors', f.length, errors)
            : t('{0}, {1} error', f.length, errors),
    ),
    group('gpus', t('GPUs'), d.diagnosis.pairs.length > 0 ? `${d.diagnosis.pairs.length}` : t('topology not read')),
    group('nics', t('NICs'), ports ? `${new Set(ports.map((p) => p.device)).size}` : t('not read')),
    group('numa', 'NUMA', numa ? t('{0} node(s)', numa.nodes.length) : t('not read')),
    group('modules', t('Modules'), ''),
    group('raw', t('Raw outputs'), `${d.report.commands.length}`),
  ];
}

function groupChildren(base: string, hostId: string, g: GroupId, d: DiagnosedOutcome): HostsNode[] {
  const row = (key: string, label: string, description: string, tone: Tone = 'unknown', tooltip?: string): HostsNode => ({
    kind: 'row',
    id: `${base}/${key}`,
    hostId,
    label,
    description,
    tone,
    tooltip,
  });
  switch (g) {
    case 'findings':
      return findingNodes(base, hostId, d.diagnosis.findings);
    case 'gpus':
      return d.diagnosis.pairs.map((pair) => gpuNode(base, hostId, pair, d.report));
    case 'nics':
      return nicNodes(base, hostId, d.report);
    case 'numa':
      return (factOf(d.report, 'numactl')?.nodes ?? []).map((n) =>
        row(
          `${n.id}`,
          t('node {0}', n.id),
          t('CPUs {0} · {1} MB', n.cpus.length > 0 ? formatCpuList(n.cpus) : t('none (memory only)'), n.sizeMb),
        ),
      );
    case 'modules':
      return moduleRows(readHostState(d.report)).map((m, i) => row(`${i}`, m.label, m.value, m.tone));
    case 'raw':
      return d.report.commands.map((c) => ({
        kind: 'raw',
        id: `${base}/${c.id}`,
        hostId,
        commandId: c.id,
        label: commandTitle(c),
        description: commandStatus(c),
      }));
    case 'ncclLog':
      return []; // childNodes asks ncclLogNodes.ts
    case 'proof':
      return []; // childNodes asks proofRows.ts
  }
}

/** A finding's knock-ons (knockOn.ts) are its children in the tree, as in the CLI report. */
function findingNodes(base: string, hostId: string, findings: readonly Finding[]): HostsNode[] {
  return findings.map((finding, i) => ({ kind: 'finding', id: `${base}/${i}:${finding.id}`, hostId, finding }));
}

/** The verdict first, then the NIC and path, the NUMA node and the GPU itself: a narrow sidebar still shows the verdict. */
function gpuNode(base: string, hostId: string, pair: GpuNicPair, report: ProbeReport): HostsNode {
  const index = /^GPU(\d+)$/.exec(pair.gpu)?.[1];
  const row = factOf(report, 'gpus')?.gpus.find((g) => index !== undefined && g.index === Number(index));
  const nics = pair.nics.map((n) => n.device ?? n.nic);
  const nic = (nics.length > 2 ? `${nics.slice(0, 2).join(', ')} +${nics.length - 2}` : nics.join(', ')) || t('no RDMA NIC');
  const parts = [
    shortVerdict(pair),
    `${nic}${pair.link ? ` (${pathLabel(pair)})` : ''}`,
    pair.numaNode !== null ? `NUMA ${pair.numaNode}` : undefined,
    row?.name,
    row?.pciBusId,
  ];
  return {
    kind: 'gpu',
    id: `${base}/${pair.gpu}`,
    hostId,
    pair,
    label: pair.gpu,
    description: parts.filter((p) => p !== undefined).join(' · '),
  };
}

/** One row per RDMA device with its ports: ibv_devinfo's, or sysfs's when ibv_devinfo is missing. */
function nicNodes(base: string, hostId: string, report: ProbeReport): HostsNode[] {
  const ports = rdmaPorts(report) ?? [];
  return [...new Set(ports.map((p) => p.device))].map((device) => {
    const id = `${base}/${device}`;
    const own = ports.filter((p) => p.device === device);
    const rows: HostsNode[] = own.map((p) => {
      const layer = p.linkLayer === 'IB' ? 'InfiniBand' : p.linkLayer === 'RoCE' ? 'Ethernet' : undefined;
      const description = [p.state ?? t('state ?'), p.speedMbps !== null ? `${p.speedMbps / 1000} Gb/s` : undefined, layer]
        .filter((x) => x !== undefined)
        .join(' · ');
      const tone: Tone = p.active === true ? 'ok' : p.active === null ? 'unknown' : 'warning';
      return { kind: 'row', id: `${id}/port${p.port}`, hostId, label: t('port {0}', p.port), description, tone };
    });
    const active = own.filter((p) => p.active === true).length;
    return { kind: 'nic', id, hostId, label: device, description: t('{0} port(s), {1} active', own.length, active), ports: rows };
  });
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
