// The topology webview: says `ready`, then draws whatever valid `topology` message arrives.
// Messages that fail the protocol's guards are dropped. Builds DOM with textContent only. Its own words
// go through t() of @vscode/l10n, with the translations the extension sends first (`l10n`).
import { config, t } from '@vscode/l10n';
import { ExtensionToWebview, TopologyData, WebviewToExtension, isExtensionToWebview } from '../protocol/topology';
import { renderDetails } from './details';
import { el } from './dom';
import { Explainer } from './explain';
import { renderGraph } from './graph';
import { renderLegend, renderMatrix } from './matrix';

declare function acquireVsCodeApi(): { postMessage(message: WebviewToExtension): void };

type Mode = 'matrix' | 'graph';

const vscode = acquireVsCodeApi();
const root = document.getElementById('root') as HTMLElement;
const state: { data?: TopologyData; mode: Mode; gpu: string | null } = { mode: 'matrix', gpu: null };
const status = el('p', { class: 'status', role: 'status', 'aria-live': 'polite' });

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
  const refocus = focusSelector(document.activeElement);
  const explainer = new Explainer(data);
  const explanation = el('p', { class: 'explanation', id: 'explanation', 'aria-live': 'polite' }, t('Hover or focus a cell or a legend entry to see what it means for GPUDirect RDMA.'));
  const events = { explain: (text: string) => { explanation.textContent = text; }, selectGpu };
  const gpu = data.gpus.find((g) => g.name === state.gpu);
  const view = state.mode === 'matrix'
    ? renderMatrix(data, explainer, new Set(gpu?.nearestNicColumns ?? []), state.gpu, events)
    : el('div', { class: 'graph-scroll' }, renderGraph(data, state.gpu, selectGpu));
  root.replaceChildren(
    el('header', {}, el('h1', {}, data.title), el('p', { class: 'source' }, data.source)),
    tabs(),
    el('div', { class: 'layout' }, el('div', { class: 'view' }, view, renderLegend(data, explainer, events), explanation),
      renderDetails(data, gpu, selectGpu, copy)),
    status,
  );
  restoreFocus(refocus);
}

/** A re-render replaces every element: remember where keyboard focus was, by id or by matrix cell. */
function focusSelector(active: Element | null): string | null {
  if (!(active instanceof HTMLElement) || active === document.body) return null;
  if (active.dataset.row !== undefined) return `td[data-row="${CSS.escape(active.dataset.row)}"][data-column="${CSS.escape(active.dataset.column ?? '')}"]`;
  return active.id ? `#${CSS.escape(active.id)}` : null;
}

function restoreFocus(selector: string | null): void {
  const target = selector ? root.querySelector<HTMLElement>(selector) : null;
  if (!target) return;
  if (target.matches('td')) {
    root.querySelectorAll<HTMLElement>('td.cell[tabindex="0"]').forEach((cell) => { cell.tabIndex = -1; });
    target.tabIndex = 0;
  }
  target.focus();
}

function tabs(): HTMLElement {
  const make = (mode: Mode, label: string) => {
    const button = el('button', { id: `tab-${mode}`, type: 'button', role: 'tab', 'aria-selected': String(state.mode === mode), class: state.mode === mode ? 'tab active' : 'tab' }, label);
    button.addEventListener('click', () => { state.mode = mode; render(); });
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
