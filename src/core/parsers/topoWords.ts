// Word splitting shared by the `nvidia-smi topo -m` header and row readers.

/** A run of non-blank characters and where it sits in its line. */
export interface Word {
  readonly text: string;
  /** 0-based index of the first character in the line. */
  readonly start: number;
  /** 0-based index just past the last character. */
  readonly end: number;
  /** True when the gap before this word holds a tab or 2+ spaces (or the word starts the line). */
  readonly startsField: boolean;
}

/**
 * Splits a line into words, in one linear pass, stopping after `maxWords` words: callers that
 * need only the first few never walk (or allocate for) the rest of a hostile multi-megabyte line.
 */
export function wordsOf(line: string, maxWords = Number.POSITIVE_INFINITY): Word[] {
  const words: Word[] = [];
  let i = 0;
  while (i < line.length && words.length < maxWords) {
    const gapStart = i;
    while (i < line.length && isBlank(line.charCodeAt(i))) i++;
    if (i >= line.length) break;
    const start = i;
    while (i < line.length && !isBlank(line.charCodeAt(i))) i++;
    const gap = line.slice(gapStart, start);
    const startsField = words.length === 0 || gap.includes('\t') || gap.length >= 2;
    words.push({ text: line.slice(start, i), start, end: i, startsField });
  }
  return words;
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

/**
 * Device names printed as matrix columns and rows: `GPU0`, `NIC3`, or an RDMA device named directly
 * (`mlx5_0`, `mlx4_0`, `rocep1s0f0`, `ibp12s0`). All carry a digit, which the words of the
 * affinity column names (`CPU Affinity`, `GPU NUMA ID`) never do.
 */
export function looksLikeDeviceName(word: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_.:-]*$/.test(word) && /\d/.test(word);
}

/** `GPU<n>` exactly. */
export function isGpuName(name: string): boolean {
  return /^GPU\d+$/.test(name);
}

/** `NIC<n>` exactly: a column whose RDMA device is named in the `NIC Legend:` block. */
export function isNicAlias(name: string): boolean {
  return /^NIC\d+$/.test(name);
}
