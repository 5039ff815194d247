// The graph's measures in natural units (1 = a CSS pixel at scale 1) and the scales it may be drawn at.

export interface Box {
  readonly width: number;
  readonly height: number;
}
export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export const SIZE = {
  leafW: 64,
  nodeH: 30,
  gapX: 6,
  rowGap: 24,
  head: 20,
  pad: 8,
  gutter: 16,
  gridGap: 10,
  band: 18,
  barH: 8,
  barGap: 10,
  charW: 6.4,
  lane: 26,
} as const;
/** Text below about 7 px is not readable: scroll rather than shrink further. */
export const MIN_SCALE = 0.62;
/** Larger text than this only wastes room the GPU panel could use. */
export const MAX_SCALE = 1.3;
/** Below this scale a NUMA node too wide for the panel is drawn in parts. */
export const SPLIT_BELOW = 0.7;
