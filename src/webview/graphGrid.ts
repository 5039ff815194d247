// The grid of NUMA panels: for a column count, where each panel goes, the NVLink bands between row
// pairs, and the scale that fits it all into the box (whole first, else the width). Pure.
import { Box, MAX_SCALE, MIN_SCALE, Rect, SIZE } from './graphSizes';

export interface Grid {
  readonly columns: number;
  readonly width: number;
  readonly height: number;
  readonly scale: number;
  /** Higher is better: fits the whole box (1 + scale) before fitting the width alone (scale). */
  readonly rank: number;
  /** How far the grid's aspect is from the box's (ties between equal scales). */
  readonly shape: number;
  readonly at: readonly (Rect & { row: number })[];
  readonly bands: readonly Rect[];
}

export function grid(sizes: readonly { readonly w: number; readonly h: number }[], columns: number, bandH: number, box: Box): Grid {
  const rows = Math.max(1, Math.ceil(sizes.length / columns));
  const colW = Array.from({ length: columns }, (_, c) => Math.max(0, ...sizes.filter((_, i) => i % columns === c).map((s) => s.w)));
  const rowH = Array.from({ length: rows }, (_, r) =>
    Math.max(0, ...sizes.filter((_, i) => Math.floor(i / columns) === r).map((s) => s.h)),
  );
  const rowY: number[] = [];
  const bands: Rect[] = [];
  let y = 0;
  const width = SIZE.gutter + colW.reduce((a, b) => a + b, 0) + (columns - 1) * SIZE.gridGap + SIZE.gutter;
  for (let r = 0; r < rows; r++) {
    rowY.push(y);
    y += rowH[r];
    // A band below each upper row of a pair (and below a last unpaired row), a plain gap elsewhere.
    if (r % 2 === 0) {
      bands.push({ x: SIZE.gutter, y, w: width - 2 * SIZE.gutter, h: bandH });
      y += bandH;
    } else if (r < rows - 1) y += SIZE.gridGap;
  }
  const at = sizes.map((s, i) => {
    const c = i % columns;
    const r = Math.floor(i / columns);
    const x = SIZE.gutter + colW.slice(0, c).reduce((a, b) => a + b, 0) + c * SIZE.gridGap;
    // Mirrored rows hang from the band above: align their panels to the band.
    return { x, y: rowY[r] + (r % 2 === 1 ? 0 : rowH[r] - s.h), w: colW[c], h: s.h, row: r };
  });
  const both = Math.min(MAX_SCALE, box.width / width, box.height / y);
  const across = Math.min(MAX_SCALE, box.width / width);
  // Seeing everything at a readable size comes first; else fill the width and scroll down.
  const scale = both >= MIN_SCALE ? both : Math.max(MIN_SCALE, across);
  const rank = both >= MIN_SCALE ? 1 + both : across;
  return { columns, width, height: y, scale, rank, shape: Math.abs(Math.log(width / y / (box.width / box.height))), at, bands };
}

/** [start, end) ranges cutting `sizes` into `n` runs of about equal total, each at least one long (n <= sizes.length, or 1). */
export function balancedChunks(sizes: readonly number[], n: number): [number, number][] {
  const ranges: [number, number][] = [];
  let start = 0;
  for (let k = 0; k < n - 1; k++) {
    const chunksLeft = n - k;
    const target = sizes.slice(start).reduce((a, b) => a + b, 0) / chunksLeft;
    let end = start + 1;
    let sum = sizes[start];
    while (end < sizes.length - (chunksLeft - 1) && Math.abs(sum + sizes[end] - target) <= Math.abs(sum - target)) sum += sizes[end++];
    ranges.push([start, end]);
    start = end;
  }
  ranges.push([start, sizes.length]);
  return ranges;
}
