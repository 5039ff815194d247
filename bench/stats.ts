// Small statistics and the printed table: medians decide, min/max show the spread.

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error('no samples');
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { n: s.length, median, min: s[0], max: s[s.length - 1] };
}

const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(10);

export function summaryLine(label: string, s: Summary): string {
  return `  ${label.padEnd(44)} median ${ms(s.median)}   min ${ms(s.min)}   max ${ms(s.max)}   (n=${s.n})`;
}

export interface Target {
  readonly label: string;
  /** gdr-doctor's median over OpenSSH's median. */
  readonly ratio: number;
  /** The ratio must be at most this (or under it, when `strict`). */
  readonly limit: number;
  readonly strict: boolean;
  readonly limitText: string;
}

export function targetLine(t: Target): string {
  const met = t.strict ? t.ratio < t.limit : t.ratio <= t.limit;
  return `  ${met ? 'PASS' : 'MISS'}  ${t.label}: ratio ${t.ratio.toFixed(2)} (target ${t.limitText})`;
}

/**
 * Runs the steps of one round, starting with step `round % n` and going round from there: over
 * the rounds every step runs first (for two steps: the order flips every round), so slow drift of
 * the machine falls on every side.
 */
export async function inRotation(round: number, steps: readonly (() => Promise<void>)[]): Promise<void> {
  for (let k = 0; k < steps.length; k++) await steps[(round + k) % steps.length]();
}
