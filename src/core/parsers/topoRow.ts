// One matrix row of `nvidia-smi topo -m`: the row name, one link cell per device column, then the
// values of the trailing (affinity) columns.
//
// Why the trailing values need care: nvidia-smi separates them with single tabs except for a double
// tab before `N/A` (`0-31\t0\t\tN/A`), NIC rows end in empty fields, and an affinity can be
// empty. With real tabs the tab fields say which value is which. When a copy expanded the tabs to
// spaces, the fields are rebuilt from the 8-column tab stops the expansion used; the header's
// character positions cannot be used because short values (`0-31`) do not line up with the names.
import { quote } from './result';
import { Word, wordsOf } from './topoWords';

export interface TopoRowCells {
  readonly name: string;
  readonly links: string[];
  /** One entry per trailing column: the value as printed (trimmed), or null when not printed. */
  readonly info: (string | null)[];
}

const TAB_STOP = 8;

/** Splits a row; returns a message when the row does not fit the header. */
export function splitRow(line: string, deviceCount: number, infoColumns: readonly string[]): TopoRowCells | string {
  // Enough fields for every column, nvidia-smi's padding and a surplus that shows there are too many.
  const maxFields = 2 * infoColumns.length + 2;
  const words = wordsOf(line, 1 + deviceCount + maxFields);
  const name = words[0].text;
  const linkWords = words.slice(1, 1 + deviceCount);
  if (linkWords.length < deviceCount) {
    return `row ${name} has ${linkWords.length} link cells, the header has ${deviceCount} device columns (cut-off row?)`;
  }
  const afterLinks = linkWords[linkWords.length - 1].end;
  const fields = line.includes('\t', afterLinks)
    ? tabFields(line.slice(afterLinks), maxFields)
    : expandedTabFields(words.slice(1 + deviceCount), afterLinks - words[0].start, words[0].start);
  const info = mapInfoFields(fields, infoColumns);
  if (typeof info === 'string') return `row ${name}: ${info}`;
  return { name, links: linkWords.map((w) => w.text), info };
}

/** Fields after the last link cell, when the row kept its tabs; at most `maxFields` of them. */
function tabFields(rest: string, maxFields: number): string[] {
  const fields: string[] = [];
  // What precedes the first tab is the padding of the last link cell (` X `), not a field.
  let tab = rest.indexOf('\t');
  while (tab >= 0 && fields.length < maxFields) {
    const next = rest.indexOf('\t', tab + 1);
    fields.push(rest.slice(tab + 1, next < 0 ? rest.length : next).trim());
    tab = next;
  }
  // Past the cap only trailing empty fields are harmless; anything else must show as a surplus value.
  if (tab >= 0 && /\S/.test(rest.slice(tab))) fields.push(rest.slice(tab).trim());
  return fields;
}

/**
 * Rebuilds tab fields from a tab-expanded row: a value starting k tab stops after the stop that
 * followed the previous value had k empty fields before it. Falls back to one field per value when
 * the values do not sit on tab stops (a hand-aligned copy).
 */
function expandedTabFields(values: readonly Word[], lastLinkEnd: number, indent: number): string[] {
  const fields: string[] = [];
  let previousEnd = lastLinkEnd;
  for (const value of values) {
    const start = value.start - indent;
    const firstStop = (Math.floor(previousEnd / TAB_STOP) + 1) * TAB_STOP;
    if (start % TAB_STOP !== 0 || start < firstStop) return values.map((v) => v.text);
    const emptyBefore = (start - firstStop) / TAB_STOP;
    for (let k = 0; k < emptyBefore; k++) fields.push('');
    fields.push(value.text);
    previousEnd = value.end - indent;
  }
  return fields;
}

/** Assigns fields to the trailing columns; returns a message when there are values left over. */
function mapInfoFields(fields: readonly string[], infoColumns: readonly string[]): (string | null)[] | string {
  const k = infoColumns.length;
  const values = dropNaPadding(fields, k);
  const extra = values.slice(k).filter((v) => v !== '');
  if (extra.length > 0) {
    return `${values.length} values after the link cells, the header has ${k} trailing columns (found ${quote(extra[0], 20)} beyond them)`;
  }
  return infoColumns.map((_, i) => (i < values.length ? values[i] : null));
}

/**
 * nvidia-smi prints two tabs before the last trailing column (`0-31\t0\t\tN/A`, `0-71\t0,3-9,11-17\t\t2` on
 * Grace, where GPU NUMA ID is a number) and, on older drivers, before each `N/A` (`0-7\t\tN/A\t\tN/A`): an
 * empty field that is no value. Such empty fields are dropped only while the row has more fields than
 * columns: first the one before the last value, then those before an `N/A`, left to right, so a genuinely
 * empty affinity (a container's cpuset: `\t\t1\t\tN/A`) is kept.
 */
function dropNaPadding(fields: readonly string[], columnCount: number): string[] {
  let surplus = fields.length - columnCount;
  let list = [...fields];
  const last = list.length - 1;
  if (surplus > 0 && last >= 1 && list[last] !== '' && list[last - 1] === '') {
    list = [...list.slice(0, last - 1), list[last]];
    surplus--;
  }
  const kept: string[] = [];
  list.forEach((field, i) => {
    if (surplus > 0 && field === '' && list[i + 1] === 'N/A') surplus--;
    else kept.push(field);
  });
  return kept;
}
