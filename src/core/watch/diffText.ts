// A diff in words: `gdr-doctor diff`'s report (a block per host that changed, worse first) and the
// few words the extension's Watch shows on a host's row ("nvidia_peermem unloaded"). Host text (device
// names, versions, titles of saved reports) is quoted as it is; the CLI makes it safe for a terminal,
// the extension's notify helper for a notification.
import { t } from '../l10n';
import { GpuChange, HostDiff, LinkChange, ReportDiff, ValueChange, hasChanges } from './diff';

const gdrWord = (gdr: boolean | null | undefined): string => (gdr === true ? t('yes') : gdr === false ? t('no') : t('unknown'));

export function formatDiff(diff: ReportDiff): string {
  const changed = diff.hosts.filter(hasChanges).sort((a, b) => Number(b.worse) - Number(a.worse));
  const lines = changed.flatMap((h) => ['', ...hostLines(h)]);
  const worse = changed.filter((h) => h.worse).length;
  const summary =
    changed.length === 0
      ? t('No change on {0} host(s).', diff.hosts.length)
      : t('{0} of {1} host(s) changed, {2} got worse.', changed.length, diff.hosts.length, worse);
  return `${[summary, ...lines].join('\n')}\n`;
}

function hostLines(h: HostDiff): string[] {
  if (h.presence === 'added') return [t('{0}: only in the new report', h.host)];
  if (h.presence === 'removed') return [t('{0}: only in the old report', h.host)];
  const head = `${h.host} (${h.from ?? '?'} → ${h.to ?? '?'})${h.worse ? `: ${t('worse')}` : ''}`;
  return [
    head,
    ...(h.diagnosed ? [`  ${h.diagnosed.to ? t('diagnosed again') : t('not diagnosed to the end (unreachable or cut off)')}`] : []),
    ...h.appeared.map((f) => `  + ${f.severity.padEnd(7)} ${f.id}: ${f.title}`),
    ...h.went.map((f) => `  - ${f.severity.padEnd(7)} ${f.id}: ${f.title}`),
    ...h.severityChanged.map((c) => `  ~ ${c.from} → ${c.to} ${c.id}: ${c.title}`),
    ...h.gpus.map((g) => `  ${gpuLine(g)}`),
    ...h.links.map((l) => `  ${linkLine(l)}`),
    ...h.modules.map((m) => `  ${moduleLine(m)}`),
    ...h.versions.map((v) => `  ${v.key}: ${v.from ?? t('(not read)')} → ${v.to ?? t('(not read)')}`),
  ];
}

function gpuLine(g: GpuChange): string {
  if (g.to === null) return t('{0}: gone (was GDR {1})', g.gpu, gdrWord(g.from?.gdr));
  if (g.from === null) return t('{0}: new, GDR {1}', g.gpu, gdrWord(g.to.gdr));
  const via = (s: NonNullable<GpuChange['to']>) => `${s.nics.join(', ') || t('no NIC')} ${s.path ?? ''}`.trim();
  if (g.from.gdr === g.to.gdr) return t('{0}: NIC {1} → {2} (GDR {3})', g.gpu, via(g.from), via(g.to), gdrWord(g.to.gdr));
  return t('{0}: GDR {1} → {2} ({3} → {4})', g.gpu, gdrWord(g.from.gdr), gdrWord(g.to.gdr), via(g.from), via(g.to));
}

function linkLine(l: LinkChange): string {
  const show = (v: number | null) => (v === null ? t('(not read)') : l.field === 'width' ? `x${v}` : `${v} GT/s`);
  return l.field === 'width'
    ? t('{0}: PCIe width {1} → {2}', l.device, show(l.from), show(l.to))
    : t('{0}: PCIe speed {1} → {2}', l.device, show(l.from), show(l.to));
}

function moduleLine(m: ValueChange<boolean>): string {
  if (m.to === true) return t('{0} loaded', m.key);
  if (m.to === false) return t('{0} unloaded', m.key);
  return t('{0}: lsmod not read', m.key);
}

/**
 * The change that matters most, in a few words, for a host row: a peer-memory module unloaded, else
 * the first new error or warning, a GPU that lost GPUDirect RDMA, a narrower link; else the first change of any kind.
 */
export function diffHeadline(h: HostDiff): string | undefined {
  if (!hasChanges(h)) return undefined;
  const unloaded = h.modules.find((m) => m.from === true && m.to === false);
  if (unloaded) return moduleLine(unloaded);
  if (h.diagnosed?.to === false) return t('not diagnosed to the end');
  const bad = h.appeared.find((f) => f.severity !== 'info') ?? h.severityChanged.find((c) => c.to !== 'info');
  if (bad) return bad.title;
  const lost = h.gpus.filter((g) => g.from?.gdr === true && g.to?.gdr !== true);
  if (lost.length > 0) return lost.length === 1 ? t('{0} lost GDR', lost[0].gpu) : t('{0} GPUs lost GDR', lost.length);
  const link = h.links.find((l) => l.from !== null && l.to !== null && l.to < l.from);
  if (link) return linkLine(link);
  const first = [
    ...h.modules.map(moduleLine),
    ...h.appeared.map((f) => f.title),
    ...h.went.map((f) => t('{0} gone', f.id)),
    ...h.gpus.map(gpuLine),
  ][0];
  return first ?? (h.versions.length > 0 ? t('{0} changed', h.versions[0].key) : t('changed'));
}
