// The header line of `nvidia-smi topo -m`: device columns first, then the multi-word
// affinity columns. The header decides the columns; rows are read against it.
import { Word, looksLikeDeviceName, wordsOf } from './topoWords';

export interface TopoHeader {
  /** Device columns in printed order: `GPU0…`, `NIC0…` or RDMA device names. */
  readonly devices: string[];
  /** Trailing columns as printed, e.g. `CPU Affinity`, `NUMA Affinity`, `GPU NUMA ID`. */
  readonly infoColumns: string[];
}

/**
 * Names whose words may be separated by a single space from the next column once tabs are
 * expanded (a 12-character name followed by a tab can leave one space), so they are matched as
 * whole phrases rather than by the width of the gap.
 */
const KNOWN_INFO_COLUMNS: readonly (readonly string[])[] = [
  ['CPU', 'Affinity'],
  ['NUMA', 'Affinity'],
  ['GPU', 'NUMA', 'ID'],
];

/** Tokens of `nvidia-smi topo -m` rows that a header never has as its second word. */
const ROW_SECOND_WORD = /^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$/;

/**
 * Whether a line is the header: its first word is a GPU name (possibly glued to the next names,
 * as some web pages print it) and its second word is not a link token. Returns 'row' when the
 * line is a matrix row instead, which means the header is missing.
 */
export function classifyHeaderCandidate(line: string): 'header' | 'row' | 'other' {
  const words = wordsOf(line, 2);
  if (words.length === 0 || !/^GPU\d+(?:[A-Za-z][\w.:-]*)?$/.test(words[0].text)) return 'other';
  if (words.length > 1 && ROW_SECOND_WORD.test(words[1].text)) return 'row';
  return 'header';
}

/** Splits a header line into columns; returns a message when it cannot. */
export function splitHeader(line: string, maxWords: number): TopoHeader | string {
  const words = wordsOf(line, maxWords + 1);
  if (words.length > maxWords) return `more than ${maxWords} words; expected one host's device columns`;
  const devices: string[] = [];
  let i = 0;
  for (; i < words.length && looksLikeDeviceName(words[i].text); i++) devices.push(...unglueGpuNames(words[i].text));
  const infoColumns = groupInfoColumns(words.slice(i));
  const stray = infoColumns.find((name) => name.split(' ').some(looksLikeDeviceName));
  if (stray !== undefined) return `a device name inside the trailing columns (${JSON.stringify(stray)})`;
  const seen = new Set<string>();
  for (const name of devices) {
    if (seen.has(name)) return `column ${name} appears twice`;
    seen.add(name);
  }
  return { devices, infoColumns };
}

/**
 * Some published copies lost the tabs between the first names (`GPU0GPU1GPU2GPU7mlx5_0`).
 * A `GPU<n>` followed directly by a letter can only be two names glued together.
 */
function unglueGpuNames(word: string): string[] {
  const names: string[] = [];
  let rest = word;
  for (let m = /^GPU\d+(?=[A-Za-z])/.exec(rest); m; m = /^GPU\d+(?=[A-Za-z])/.exec(rest)) {
    names.push(m[0]);
    rest = rest.slice(m[0].length);
  }
  names.push(rest);
  return names;
}

function groupInfoColumns(words: readonly Word[]): string[] {
  const columns: string[] = [];
  let i = 0;
  while (i < words.length) {
    const phrase = knownPhraseAt(words, i);
    if (phrase > 0) {
      columns.push(
        words
          .slice(i, i + phrase)
          .map((w) => w.text)
          .join(' '),
      );
      i += phrase;
      continue;
    }
    // An unknown column: its words run on while separated by single spaces.
    const parts = [words[i].text];
    for (i++; i < words.length && !words[i].startsField && knownPhraseAt(words, i) === 0; i++) parts.push(words[i].text);
    columns.push(parts.join(' '));
  }
  return columns;
}

/** Length in words of the known column name starting at words[i], or 0. */
function knownPhraseAt(words: readonly Word[], i: number): number {
  for (const phrase of KNOWN_INFO_COLUMNS) {
    if (phrase.every((part, k) => words[i + k]?.text === part)) return phrase.length;
  }
  return 0;
}
