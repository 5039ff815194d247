// The per-GPU panel (NCCL's NIC and verdict, NUMA node, CPUs, suggested NCCL_IB_HCA and pinning) and the
// host's suggested environment, each value with a Copy button that asks the extension to copy.
import type { GpuDetail, TopologyData } from '../protocol/topology';
import { t } from '@vscode/l10n';
import { el } from './dom';

export type Copy = (label: string, text: string) => void;

export function renderDetails(data: TopologyData, gpu: GpuDetail | undefined, selectGpu: (name: string) => void, copy: Copy): HTMLElement {
  const picker = el(
    'select',
    { id: 'gpu-picker', 'aria-label': t('GPU') },
    ...data.gpus.map((g) => {
      const option = el('option', { value: g.name }, g.name);
      option.selected = g.name === gpu?.name;
      return option;
    }),
  );
  picker.addEventListener('change', () => selectGpu(picker.value));
  const section = el('section', { class: 'details', 'aria-label': t('GPU details') }, el('h2', {}, t('GPU ')), picker);
  if (!gpu) return section;
  const tone = gpu.gdr === true ? 'used' : gpu.gdr === false ? 'not-used' : 'unknown';
  section.append(
    el(
      'dl',
      {},
      ...row(t("NCCL's NIC"), gpu.nearestNics.join(', ') || t('none')),
      ...row(t('Link'), linkText(gpu)),
      ...(gpu.proxyGpu ? row(t('Relayed through'), t('{0} over NVLink (PXN)', gpu.proxyGpu)) : []),
      ...row('GPUDirect RDMA', gpu.verdict, `gdr-${tone}`),
      ...row(t('NUMA node'), gpu.numaNode ?? t('unknown')),
      ...row(t('CPU list'), gpu.cpus ?? t('unknown'), '', copyButton(t('CPU list'), gpu.cpus, copy)),
      ...row('NCCL_IB_HCA', gpu.ncclIbHca ?? t('no named NIC'), 'code', copyButton('NCCL_IB_HCA', gpu.ncclIbHcaShell, copy)),
      ...row(t('Pinning'), gpu.pinning ?? t('unknown'), 'code', copyButton(t('pinning'), gpu.pinning, copy)),
      ...(gpu.proof
        ? row(t('Measured'), `${gpu.proof.verdict} — ${gpu.proof.modes.join('; ')} (${gpu.proof.measured})`, `proof-${gpu.proof.tone}`)
        : []),
    ),
    el('p', { class: 'reason' }, gpu.reason),
    el('p', { class: 'confirm' }, gpu.confirm),
  );
  if (data.env.length > 0) {
    section.append(
      el('h3', {}, t('Suggested job environment (whole host)')),
      el('dl', {}, ...data.env.flatMap((e) => row(e.name, e.value, 'code', copyButton(e.name, e.shell, copy)))),
    );
  }
  return section;
}

/** `NODE (NCCL: PXN)`; `PIX, derived from the PCI tree` where nvidia-smi topo -m was not read. */
function linkText(gpu: GpuDetail): string {
  if (gpu.link === null) return '-';
  const link = gpu.linkDerived ? t('{0}, derived from the PCI tree', gpu.link) : gpu.link;
  return gpu.ncclPath !== null && gpu.ncclPath !== gpu.link ? `${link} (NCCL: ${gpu.ncclPath})` : link;
}

function row(term: string, value: string, cls = '', action?: HTMLElement | null): HTMLElement[] {
  return [el('dt', {}, term), el('dd', {}, el('span', { class: cls }, ...breakable(value)), action ?? null)];
}

/**
 * A value that wraps only between words and after commas: each word, and each comma-separated part of
 * one, is kept whole (a browser would otherwise break `--membind=3` after its first hyphen).
 */
function breakable(value: string): Node[] {
  return value.split(' ').flatMap((word, i) => {
    const parts = word.split(',').flatMap((part, j, all) => {
      const token = el('span', { class: 'token' }, j < all.length - 1 ? `${part},` : part);
      return j < all.length - 1 ? [token, el('wbr')] : [token];
    });
    return i === 0 ? parts : [document.createTextNode(' '), ...parts];
  });
}

function copyButton(label: string, text: string | null, copy: Copy): HTMLElement | null {
  if (text === null) return null;
  const button = el(
    'button',
    { class: 'copy', type: 'button', title: t('Copy {0}', label), 'aria-label': t('Copy {0}', label) },
    t('Copy'),
  );
  button.addEventListener('click', () => copy(label, text));
  return button;
}
