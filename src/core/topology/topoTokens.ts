// What sits at a line/column of `nvidia-smi topo -m` output (a matrix cell, a device name, a legend
// line), and whether a text is such output at all. Editors use it for hovers and language
// detection; the reading itself is parseTopo's, so the editor never disagrees with the diagnosis.
import { Topology, parseTopo, withoutSgr } from '../parsers/topo';
import { classifyHeaderCandidate } from '../parsers/topoHeader';
import { TopoLegendEntry, readLegends } from '../parsers/topoLegend';
import { Word, wordsOf } from '../parsers/topoWords';

/** A parsed document plus where its parts sit (0-based line indexes). */
export interface TopoDocument {
  readonly topology: Topology;
  readonly lines: readonly string[];
  readonly headerLine: number;
  /** Index of the first line after the matrix rows. */
  readonly matrixEnd: number;
}

interface Span {
  /** 0-based character range in its line, end exclusive. */
  readonly start: number;
  readonly end: number;
}

export type TopoTokenAt = Span &
  (
    | { readonly kind: 'cell'; readonly token: string; readonly row: string; readonly column: string }
    | { readonly kind: 'device'; readonly name: string }
    | { readonly kind: 'legend'; readonly entry: TopoLegendEntry }
    | { readonly kind: 'nicLegend'; readonly alias: string; readonly device: string }
  );

/** Detection reads no further: a pasted matrix header sits near the top. */
const DETECT_MAX_CHARS = 512 * 1024;
export const DETECT_HEADER_WITHIN_LINES = 100;
const LEGEND_HEADINGS = new Set(['Legend:', 'NIC Legend:']);

/**
 * Whether a text is `nvidia-smi topo -m` output: a header near the top and a matrix that parses
 * whole. Cheap on ordinary text: most files fail the header scan of their first lines.
 */
export function looksLikeTopoOutput(text: string): boolean {
  if (text.length > DETECT_MAX_CHARS) return false;
  if (!topoHeaderNearTop(text.slice(0, 64 * 1024).split(/\r\n|\r|\n/, DETECT_HEADER_WITHIN_LINES))) return false;
  const parsed = parseTopo(text);
  return parsed.ok && parsed.value.gpus.length > 0;
}

/** The cheap half of looksLikeTopoOutput: one of a text's first lines is a matrix header. */
export function topoHeaderNearTop(firstLines: readonly string[]): boolean {
  return firstLines.slice(0, DETECT_HEADER_WITHIN_LINES).some((line) => classifyHeaderCandidate(withoutSgr(line)) === 'header');
}

/** Parses a document and locates its header and matrix; null when it is not readable topo output. */
export function readTopoDocument(text: string): TopoDocument | null {
  const parsed = parseTopo(text);
  if (!parsed.ok) return null;
  const lines = text.split(/\r\n|\r|\n/);
  // parseTopo takes the first line that classifies as a header; so does this.
  const headerLine = lines.findIndex((line) => classifyHeaderCandidate(withoutSgr(line)) === 'header');
  if (headerLine < 0) return null;
  const columns = new Set(parsed.value.columns);
  let matrixEnd = headerLine + 1;
  while (matrixEnd < lines.length && columns.has(firstWord(lines[matrixEnd]))) matrixEnd++;
  return { topology: parsed.value, lines, headerLine, matrixEnd };
}

/** The token under a 0-based line/character position, or null for anything else. */
export function topoTokenAt(doc: TopoDocument, line: number, character: number): TopoTokenAt | null {
  const text = doc.lines[line];
  if (text === undefined) return null;
  if (line === doc.headerLine) return headerDeviceAt(doc, text, character);
  if (line > doc.headerLine && line < doc.matrixEnd) return matrixWordAt(doc, text, character);
  if (line >= doc.matrixEnd) return legendLineAt(doc, line, character);
  return null;
}

function headerDeviceAt(doc: TopoDocument, text: string, character: number): TopoTokenAt | null {
  const word = wordAt(wordsOf(text), character);
  // A glued header copy (`GPU0GPU1`) has words that are no column: nothing to explain there.
  if (!word || !doc.topology.columns.includes(word.text)) return null;
  return { kind: 'device', name: word.text, start: word.start, end: word.end };
}

function matrixWordAt(doc: TopoDocument, text: string, character: number): TopoTokenAt | null {
  const { columns } = doc.topology;
  const words = wordsOf(text, columns.length + 1);
  const index = words.findIndex((w) => character >= w.start && character < w.end);
  if (index < 0) return null;
  const word = words[index];
  if (index === 0) return { kind: 'device', name: word.text, start: word.start, end: word.end };
  return { kind: 'cell', token: word.text, row: words[0].text, column: columns[index - 1], start: word.start, end: word.end };
}

/** A `Legend:` or `NIC Legend:` entry, judged by the same reader parseTopo uses. */
function legendLineAt(doc: TopoDocument, line: number, character: number): TopoTokenAt | null {
  const text = doc.lines[line];
  const trimmed = text.trim();
  const start = text.length - text.trimStart().length;
  const end = start + trimmed.length;
  if (trimmed === '' || character < start || character >= end) return null;
  const heading = findLegendHeading(doc, line);
  if (heading < 0) return null;
  const block = doc.lines.slice(heading, line + 1);
  const entriesBefore = block.slice(1, -1).filter((l) => l.trim() !== '').length;
  const { legend, nicDevices } = readLegends(block);
  if (doc.lines[heading].trim() === 'Legend:') {
    // Every line since the heading must be an entry, the hovered one last; otherwise the block ended.
    if (legend.length !== entriesBefore + 1) return null;
    return { kind: 'legend', entry: legend[legend.length - 1], start, end };
  }
  const alias = trimmed.slice(0, trimmed.indexOf(':'));
  const device = nicDevices.get(alias);
  if (nicDevices.size !== entriesBefore + 1 || device === undefined) return null;
  return { kind: 'nicLegend', alias, device, start, end };
}

function findLegendHeading(doc: TopoDocument, line: number): number {
  for (let i = line - 1; i >= doc.matrixEnd; i--) {
    if (LEGEND_HEADINGS.has(doc.lines[i].trim())) return i;
  }
  return -1;
}

function wordAt(words: readonly Word[], character: number): Word | undefined {
  return words.find((w) => character >= w.start && character < w.end);
}

function firstWord(line: string): string {
  return wordsOf(line, 1)[0]?.text ?? '';
}
