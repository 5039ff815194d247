// The GPU/NIC matrix as a keyboard grid: one tab stop, arrow keys move between cells (roving
// tabindex), hover or focus explains a cell, Enter/click on a GPU row selects that GPU.
import type { TopologyData } from '../protocol/topology';
import { t } from '@vscode/l10n';
import { el } from './dom';
import { Explainer } from './explain';

export interface MatrixEvents {
  explain(text: string): void;
  selectGpu(name: string): void;
}

export function renderMatrix(data: TopologyData, explainer: Explainer, chosen: ReadonlySet<string>, selectedGpu: string | null, events: MatrixEvents): HTMLElement {
  const gpus = new Set(data.gpus.map((g) => g.name));
  const head = el('tr', {}, el('th', { scope: 'col', class: 'corner' }), ...data.columns.map((c) => el('th', { scope: 'col' }, c)));
  const rows = data.columns.map((row, r) => {
    const selected = row === selectedGpu;
    const header = el('th', { scope: 'row', class: selected ? 'selected-row' : '' }, row);
    const cells = data.columns.map((column, c) => {
      const token = data.cells[r][c];
      const explanation = explainer.cell(row, column, token);
      const cls = token ? explainer.of(token)?.linkClass ?? 'unknown' : 'empty';
      const classes = ['cell', `link-${cls}`];
      if (selected && chosen.has(column)) classes.push('chosen');
      const td = el('td', { class: classes.join(' '), tabindex: r === 0 && c === 0 ? '0' : '-1', title: explanation, 'data-row': row, 'data-column': column, role: 'gridcell', 'aria-label': explanation }, token ?? '');
      const explain = () => events.explain(explanation);
      td.addEventListener('mouseenter', explain);
      td.addEventListener('focus', explain);
      if (gpus.has(row)) td.addEventListener('click', () => events.selectGpu(row));
      return td;
    });
    return el('tr', {}, header, ...cells);
  });
  const table = el('table', { class: 'matrix', role: 'grid', 'aria-label': t('GPU and NIC link matrix') }, el('thead', {}, head), el('tbody', {}, ...rows));
  table.addEventListener('keydown', (e) => onKey(e, table, gpus, events));
  const scroller = el('div', { class: 'matrix-scroll', tabindex: '-1' }, table);
  const frame = el('div', { class: 'matrix-frame' }, scroller);
  // A shade on the right while columns are out of view there, so a clipped matrix never looks complete.
  const mark = () => {
    frame.classList.toggle('more-right', scroller.scrollLeft + scroller.clientWidth < scroller.scrollWidth - 1);
  };
  scroller.addEventListener('scroll', mark);
  new ResizeObserver(mark).observe(scroller);
  return frame;
}

const MOVES: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

function onKey(e: KeyboardEvent, table: HTMLTableElement, gpus: ReadonlySet<string>, events: MatrixEvents): void {
  const cell = (e.target as HTMLElement).closest('td');
  if (!cell) return;
  const row = cell.parentElement as HTMLTableRowElement;
  if (e.key === 'Enter' || e.key === ' ') {
    const name = cell.getAttribute('data-row') ?? '';
    if (gpus.has(name)) events.selectGpu(name);
    e.preventDefault();
    return;
  }
  const move = MOVES[e.key];
  if (!move) return;
  e.preventDefault();
  const body = table.tBodies[0];
  const r = Math.min(Math.max(row.sectionRowIndex + move[0], 0), body.rows.length - 1);
  // cellIndex counts the row header: data cells start at 1.
  const c = Math.min(Math.max(cell.cellIndex + move[1], 1), body.rows[r].cells.length - 1);
  const next = body.rows[r].cells[c];
  cell.tabIndex = -1;
  next.tabIndex = 0;
  next.focus();
}

export function renderLegend(data: TopologyData, explainer: Explainer, events: MatrixEvents): HTMLElement {
  const items = data.explanations.map((e) => {
    const text = explainer.legend(e.token);
    const item = el('li', { class: `legend-item`, tabindex: '0', title: text, 'aria-label': text },
      el('span', { class: `swatch link-${e.linkClass}` }, e.token), el('span', { class: 'legend-meaning' }, e.meaning));
    item.addEventListener('mouseenter', () => events.explain(text));
    item.addEventListener('focus', () => events.explain(text));
    return item;
  });
  return el('ul', { class: 'legend', 'aria-label': t('Legend') }, ...items);
}
