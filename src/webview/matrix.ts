// The GPU/NIC matrix as a keyboard grid: one tab stop, arrow keys move between cells (roving
// tabindex), hover or focus explains a cell, Enter/click on a GPU row selects that GPU.
import type { GdrCell, GdrState, TopologyData } from '../protocol/topology';
import { t } from '@vscode/l10n';
import { el } from './dom';
import { Explained, Explainer, flat } from './explain';

export interface MatrixEvents {
  explain(what: Explained): void;
  selectGpu(name: string): void;
}

export function renderMatrix(
  data: TopologyData,
  explainer: Explainer,
  chosen: ReadonlySet<string>,
  selectedGpu: string | null,
  events: MatrixEvents,
): HTMLElement {
  const gpus = new Set(data.gpus.map((g) => g.name));
  const gdr = gdrCellsByPair(data);
  const head = el('tr', {}, el('th', { scope: 'col', class: 'corner' }), ...data.columns.map((c) => el('th', { scope: 'col' }, c)));
  const rows = data.columns.map((row, r) => {
    const selected = row === selectedGpu;
    const header = el('th', { scope: 'row', class: selected ? 'selected-row' : '' }, row);
    const cells = data.columns.map((column, c) => {
      const token = data.cells[r][c];
      const pair = gdr.get(`${row}|${column}`) ?? gdr.get(`${column}|${row}`);
      const explained = explainer.cell(row, column, token, pair);
      const explanation = flat(explained);
      const cls = token ? (explainer.of(token)?.linkClass ?? 'unknown') : 'empty';
      // A GPU↔NIC cell is coloured by what happens on this host, not by its distance (written in it).
      const classes = pair ? ['cell', `gdr-${pair.state}`] : ['cell', `link-${cls}`];
      if (selected && chosen.has(column)) classes.push('chosen');
      const td = el(
        'td',
        {
          class: classes.join(' '),
          tabindex: r === 0 && c === 0 ? '0' : '-1',
          title: explanation,
          'data-row': row,
          'data-column': column,
          role: 'gridcell',
          'aria-label': explanation,
          'data-link': cls,
        },
        token ?? '',
        pair ? el('span', { class: 'gdr-mark', 'aria-hidden': 'true' }, GDR_MARK[pair.state]) : null,
      );
      const explain = () => events.explain(explained);
      td.addEventListener('mouseenter', explain);
      td.addEventListener('focus', explain);
      if (gpus.has(row)) td.addEventListener('click', () => events.selectGpu(row));
      return td;
    });
    return el('tr', {}, header, ...cells);
  });
  const table = el(
    'table',
    { class: 'matrix', role: 'grid', 'aria-label': t('GPU and NIC link matrix') },
    el('thead', {}, head),
    el('tbody', {}, ...rows),
  );
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

/** The glyph in a GPU↔NIC cell's corner, beside its distance: colour is never the only sign. */
export const GDR_MARK: Record<GdrState, string> = { on: '✓', off: '✗', unknown: '?' };

function gdrCellsByPair(data: TopologyData): Map<string, GdrCell> {
  return new Map(data.gdrCells.map((c) => [`${c.gpu}|${c.nic}`, c]));
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
  const item = (what: Explained, swatch: HTMLElement, meaning: string) => {
    const text = flat(what);
    const li = el(
      'li',
      { class: 'legend-item', tabindex: '0', title: text, 'aria-label': text },
      swatch,
      el('span', { class: 'legend-meaning' }, meaning),
    );
    li.addEventListener('mouseenter', () => events.explain(what));
    li.addEventListener('focus', () => events.explain(what));
    return li;
  };
  const links = data.explanations.map((e) =>
    item(explainer.legend(e.token), el('span', { class: `swatch link-${e.linkClass}` }, e.token), e.meaning),
  );
  const states = [...new Set(data.gdrCells.map((c) => c.state))].sort((a, b) => GDR_ORDER.indexOf(a) - GDR_ORDER.indexOf(b));
  const pairs = states.map((state) => {
    const words = gdrLegendWords(state, data.banner !== null);
    return item(
      { lead: `${words.label}.`, body: words.explanation },
      el('span', { class: `swatch gdr-${state}` }, GDR_MARK[state]),
      words.label,
    );
  });
  const pairsHeading = data.banner !== null ? t('GPU ↔ NIC on this host:') : t('GPU ↔ NIC from this matrix:');
  return el(
    'div',
    { class: 'legends' },
    ...(pairs.length > 0
      ? [el('p', { class: 'legend-heading' }, pairsHeading), el('ul', { class: 'legend gdr-legend', 'aria-label': pairsHeading }, ...pairs)]
      : []),
    el('p', { class: 'legend-heading' }, t('Link types:')),
    el('ul', { class: 'legend', 'aria-label': t('Legend') }, ...links),
  );
}

const GDR_ORDER: readonly GdrState[] = ['on', 'off', 'unknown'];

function gdrLegendWords(state: GdrState, host: boolean): { label: string; explanation: string } {
  switch (state) {
    case 'on':
      return {
        label: t('GPUDirect RDMA on'),
        explanation: t("NCCL moves this pair's data straight between GPU memory and the NIC. The distance is written in the cell."),
      };
    case 'off':
      return {
        label: t('GPUDirect RDMA off'),
        explanation: t("NCCL stages this pair's data through host memory: hover the cell for why (the host, or the distance)."),
      };
    case 'unknown':
      return {
        label: t('GPUDirect RDMA unknown'),
        explanation: host
          ? t('What the verdict rests on was not read on this host: hover the cell for what is missing.')
          : t('The matrix alone does not say whether the NIC side (peer memory, dma-buf) works: diagnose the host to know.'),
      };
  }
}
