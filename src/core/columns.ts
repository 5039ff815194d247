// Terminal columns for text in any language: a CJK character (Chinese, Japanese, Korean, full-width
// forms) takes two columns, a combining mark none, so a table padded by string length would sit off
// once its headings are translated. The ranges are Unicode's East Asian Width W and F classes
// (UAX #11), as wcwidth(3) implementations count them, for the blocks a translation uses.
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe30, 0xfe4f], // CJK compatibility forms
  [0xff00, 0xff60], // full-width forms
  [0xffe0, 0xffe6], // full-width signs
  [0x20000, 0x3fffd], // CJK extensions B and later
];

function charWidth(cp: number): number {
  if (cp >= 0x0300 && cp <= 0x036f) return 0; // combining diacritical marks
  return WIDE.some(([lo, hi]) => cp >= lo && cp <= hi) ? 2 : 1;
}

/** How many terminal columns `text` takes (one line). */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/** `text` followed by spaces to `columns` columns (as String.padEnd, counting columns). */
export function padEndColumns(text: string, columns: number): string {
  return text + ' '.repeat(Math.max(0, columns - displayWidth(text)));
}

/** Spaces, then `text`, to `columns` columns (as String.padStart, counting columns). */
export function padStartColumns(text: string, columns: number): string {
  return ' '.repeat(Math.max(0, columns - displayWidth(text))) + text;
}
