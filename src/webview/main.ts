// The topology webview: says `ready`, then draws whatever valid `topology` message arrives.
// Messages that fail the protocol's guards are dropped. Builds DOM with textContent only. Its own words
// go through t() of @vscode/l10n, with the translations the extension sends first (`l10n`).
import { config, t } from '@vscode/l10n';
import { ExtensionToWebview, TopologyData, WebviewToExtension, isExtensionToWebview } from '../protocol/topology';
import { renderDetails } from './details';
import { el } from './dom';
import { Explained, Explainer } from './explain';
import { renderGraph, renderGraphLegend, setTabStop } from './graph';
import { renderLegend, renderMatrix } from './matrix';

declare function acquireVsCodeApi(): { postMessage(message: WebviewToExtension): void };

type Mode = 'matrix' | 'graph';

const vscode = acquireVsCodeApi();
const root = document.getElementById('root') as HTMLElement;
const state: { data?: TopologyData; mode: Mode; gpu: string | null } = { mode: 'matrix', gpu: null };
const status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
/** Room kept under the graph for its legend and the explanation box, so both stay in view. */
const BELOW_GRAPH = 170;
let resizing: ResizeObserver | undefined;

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (!isExtensionToWebview(event.data)) return;
  receive(event.data);
});
vscode.postMessage({ type: 'ready' });

function receive(message: ExtensionToWebview): void {
  if (message.type === 'l10n') {
    config({ contents: { ...message.bundle } });
    render();
    return;
  }
  if (message.type === 'copied') {
    status.textContent = t('Copied {0} to the clipboard.', message.label);
    return;
  }
  state.data = message.data;
  if (!message.data.gpus.some((g) => g.name === state.gpu)) state.gpu = message.data.gpus[0]?.name ?? null;
  render();
}

function render(): void {
  const data = state.data;
  if (!data) return;
  const refocus = focusSelector(document.activeElement) ?? graphFocusSelector(document.activeElement);
  const explainer = new Explainer(data);
  const graph = state.mode === 'graph';
  const hint = graph
    ? t(
        'Hover or focus a node, a line or a legend entry to see what it is and what it means for GPUDirect RDMA; arrow keys move between nodes.',
      )
    : t('Hover or focus a cell or a legend entry to see what it means for GPUDirect RDMA.');
  const explanation = el('p', { class: 'explanation', id: 'explanation', 'aria-live': 'polite' }, hint);
  const events = {
    explain: (what: Explained) => showExplained(explanation, what),
    selectGpu,
  };
  const gpu = data.gpus.find((g) => g.name === state.gpu);
  const view = graph
    ? el('div', { class: 'graph-scroll', id: 'graph-host' })
    : renderMatrix(data, explainer, new Set(gpu?.nearestNicColumns ?? []), state.gpu, events);
  const legend = graph ? renderGraphLegend(data, state.gpu, events) : renderLegend(data, explainer, events);
  root.replaceChildren(
    ...[banner(data)].filter((b): b is HTMLElement => b !== null),
    el('header', {}, el('h1', {}, data.title), el('p', { class: 'source' }, data.source)),
    tabs(),
    el(
      'div',
      { class: 'layout' },
      el('div', { class: 'view' }, caption(data, graph), view, legend, explanation),
      renderDetails(data, gpu, selectGpu, copy),
    ),
    status,
  );
  resizing?.disconnect();
  if (graph) drawGraph(data, view, events);
  else stackIfTooWide(view);
  restoreFocus(refocus);
}

/** The verdict first and strong, what the part is, then why (NCCL's rule and its source) last, smaller. */
function showExplained(box: HTMLElement, what: Explained): void {
  const parts: (string | HTMLElement)[] = [el('strong', { class: 'lead' }, what.lead)];
  if (what.body) parts.push(` ${what.body}`);
  if (what.why) parts.push(el('span', { class: 'why' }, t('Why: {0}', what.why)));
  box.replaceChildren(...parts);
}

/** Lays the graph out for the room its host has now, and again when that width changes. */
function drawGraph(data: TopologyData, host: HTMLElement, events: { explain(what: Explained): void; selectGpu(name: string): void }): void {
  let width = -1;
  const draw = () => {
    if (Math.abs(host.clientWidth - width) < 8) return;
    width = host.clientWidth;
    const height = Math.max(280, window.innerHeight - host.getBoundingClientRect().top - BELOW_GRAPH);
    const svgRoot = renderGraph(data, state.gpu, { width: width - 4, height }, events);
    setTabStop(svgRoot, state.gpu);
    host.replaceChildren(svgRoot);
  };
  draw();
  resizing = new ResizeObserver(() => draw());
  resizing.observe(host);
}

/** A matrix wider than its column gets the whole width, the GPU panel moving below it. */
function stackIfTooWide(frame: HTMLElement): void {
  const scroller = frame.querySelector<HTMLElement>('.matrix-scroll');
  if (scroller && scroller.scrollWidth > scroller.clientWidth) root.querySelector('.layout')?.classList.add('stacked');
}

/** What the view shows: the matrix as printed or derived; the real PCIe tree or the matrix's inferred layout. */
function caption(data: TopologyData, graph: boolean): HTMLElement | null {
  if (graph) {
    const text = data.graph.tree
      ? t(
          "The PCIe tree read from sysfs: CPUs, host bridges, switches, GPUs and NICs with their links; the selected GPU's route to its NIC highlighted.",
        )
      : t('Inferred from the matrix (the PCI tree was not read): PCIe groups stand for switches the matrix implies, not real ones.');
    return el('p', { class: 'caption' }, text);
  }
  return data.derived
    ? el(
        'p',
        { class: 'caption derived' },
        t(
          'Derived from the sysfs PCI tree, as nvidia-smi would compute it (nvidia-smi topo -m was not read): PCIe distances only, NVLink not shown.',
        ),
      )
    : null;
}

/** A re-render replaces every element: remember where keyboard focus was, by id or by matrix cell. */
function focusSelector(active: Element | null): string | null {
  if (!(active instanceof HTMLElement) || active === document.body) return null;
  if (active.dataset.row !== undefined)
    return `td[data-row="${CSS.escape(active.dataset.row)}"][data-column="${CSS.escape(active.dataset.column ?? '')}"]`;
  return active.id ? `#${CSS.escape(active.id)}` : null;
}

function graphFocusSelector(active: Element | null): string | null {
  return active instanceof SVGElement && active.dataset.node !== undefined ? `[data-node="${CSS.escape(active.dataset.node)}"]` : null;
}

function restoreFocus(selector: string | null): void {
  const target = selector ? root.querySelector<HTMLElement | SVGElement>(selector) : null;
  if (!target) return;
  if (target.matches('td, [data-node]')) {
    root
      .querySelectorAll<HTMLElement | SVGElement>('td.cell[tabindex="0"], [data-node][tabindex="0"]')
      .forEach((e) => e.setAttribute('tabindex', '-1'));
    target.setAttribute('tabindex', '0');
  }
  target.focus();
}

const BANNER_GLYPH = { ok: '✓', warning: '⚠', error: '✗', unknown: '?' } as const;

/** A diagnosed host's verdict, first thing in the panel, with the button the extension offered. */
function banner(data: TopologyData): HTMLElement | null {
  const b = data.banner;
  if (!b) return null;
  const action = b.action !== null ? el('button', { type: 'button', id: 'banner-action', class: 'banner-action' }, b.action) : null;
  action?.addEventListener('click', () => vscode.postMessage({ type: 'bannerAction' }));
  return el(
    'div',
    { class: `banner banner-${b.tone}`, id: 'banner', role: 'status' },
    el('span', { class: 'banner-glyph', 'aria-hidden': 'true' }, BANNER_GLYPH[b.tone]),
    el('span', { class: 'banner-text' }, b.text),
    action,
  );
}

function tabs(): HTMLElement {
  const make = (mode: Mode, label: string) => {
    const button = el(
      'button',
      {
        id: `tab-${mode}`,
        type: 'button',
        role: 'tab',
        'aria-selected': String(state.mode === mode),
        class: state.mode === mode ? 'tab active' : 'tab',
      },
      label,
    );
    button.addEventListener('click', () => {
      state.mode = mode;
      render();
    });
    return button;
  };
  return el('div', { class: 'tabs', role: 'tablist', 'aria-label': t('View') }, make('matrix', t('Matrix')), make('graph', t('Graph')));
}

function selectGpu(name: string): void {
  state.gpu = name;
  render();
}

function copy(label: string, text: string): void {
  vscode.postMessage({ type: 'copy', label, text });
}
