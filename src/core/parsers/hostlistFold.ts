// Folding host names into a host list exactly as ClusterShell 1.9's `nodeset -f` prints it, so the
// CLI and the Fleet view show what an HPC user's own tools would: every digit run of a name is an
// axis (`rack1-gpu01` has two), names are grouped by the text around their digits and the groups
// sorted by it, a one-axis group folds into one bracket (RangeSet._slices_padding), a many-axis
// group merges like RangeSetND._fold_multivariate. Index values stay strings, so `1`, `01` and
// `001` remain three hosts and padding is kept.
/** One axis: distinct index strings, sorted as ClusterShell sorts them (length, then text). */
type Axis = readonly string[];
type Vector = readonly Axis[];

/** Names already checked (hostlist.ts foldHostList): no brackets, commas or spaces. */
export function foldNames(hosts: readonly string[]): string {
  const groups = new Map<string, Vector[]>();
  for (const host of new Set(hosts)) {
    const parts = host.split(/(\d+)/);
    const pattern = parts.filter((_, i) => i % 2 === 0).join('%s');
    const vector = parts.filter((_, i) => i % 2 === 1).map((d) => [d]);
    groups.set(pattern, [...(groups.get(pattern) ?? []), vector]);
  }
  return [...groups.keys()]
    .sort(byCodeUnits)
    .flatMap((pattern) => foldGroup(pattern, groups.get(pattern) ?? []))
    .join(',');
}

function foldGroup(pattern: string, vectors: Vector[]): string[] {
  const dims = vectors[0].length;
  if (dims === 0) return [pattern];
  if (dims === 1) return [fill(pattern, [sortAxis(vectors.flatMap((v) => v[0]))])];
  return (vectors.length === 1 ? vectors : mergeVectors(vectors)).map((v) => fill(pattern, v));
}

function fill(pattern: string, vector: Vector): string {
  let i = 0;
  return pattern.replace(/%s/g, () => {
    const axis = vector[i++];
    return axis.length > 1 ? `[${axisText(axis)}]` : axisText(axis);
  });
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortAxis(values: readonly string[]): Axis {
  return [...new Set(values)].sort((a, b) => a.length - b.length || byCodeUnits(a, b));
}

/**
 * RangeSet._slices_padding with autostep off: consecutive indexes fold into `a-b` while the padding
 * agrees (a padded run keeps its width; an unpadded one takes no padded index). Ported step for step,
 * quirks included: `08,99,100` stays three items, since 99 first extends 08's (padded) run.
 */
function axisText(axis: Axis): string {
  const out: string[] = [];
  let pad = 0;
  let padded = false;
  let start: bigint | null = null;
  let step: bigint | null = null;
  let last = 0n;
  const emit = (from: bigint, to: bigint) =>
    out.push(from === to ? num(from, padded ? pad : 0) : `${num(from, padded ? pad : 0)}-${num(to, padded ? pad : 0)}`);
  const restart = (s: string, idx: bigint) => {
    [start, padded, pad] = [idx, s.length > 1 && s[0] === '0', s.length];
  };
  for (const s of axis) {
    const idx = BigInt(s);
    if (start === null) {
      [step, last] = [null, idx];
      restart(s, idx);
      continue;
    }
    const padMismatch = padded ? s.length !== pad : s.length > 1 && s[0] === '0';
    const stepMismatch: boolean = !padMismatch && step !== null && step !== idx - last;
    if (padMismatch || stepMismatch) {
      if (step === null || step === 1n) {
        emit(start, last);
        restart(s, idx);
      } else {
        for (let j: bigint = start; j <= (padMismatch ? last : last - step); j += step) emit(j, j);
        if (padMismatch) restart(s, idx);
        else start = last;
      }
      [step, last] = [stepMismatch ? idx - last : null, idx];
      continue;
    }
    [step, last] = [idx - last, idx];
  }
  if (start !== null && (step === null || step === 1n)) emit(start, last);
  else if (start !== null && step !== null) for (let j: bigint = start; j <= last; j += step) emit(j, j);
  return out.join(',');
}

function num(n: bigint, pad: number): string {
  return n.toString().padStart(pad, '0');
}

/**
 * RangeSetND._fold_multivariate_merge over single points: sort (larger vectors first, then per axis
 * larger, lower first index, lower last index), merge two vectors that differ on one axis only;
 * cheap passes first, then full passes until nothing changes.
 */
function mergeVectors(points: readonly Vector[]): Vector[] {
  const vecs = [...new Map(points.map((p) => [p.join('\u0000'), p])).values()];
  let full = false;
  let changed = true;
  while (changed) {
    changed = false;
    vecs.sort(compareVectors);
    for (let i1 = 0; i1 + 1 < vecs.length; i1++) {
      let i2 = i1 + 1;
      while (i2 < vecs.length) {
        const merged = mergePair(vecs[i1], vecs[i2]);
        if (merged) {
          changed = true;
          vecs[i1] = merged;
          vecs.splice(i2, 1);
        } else if (!full) break;
        else i2++;
      }
    }
    if (!changed && !full) changed = full = true;
  }
  return vecs;
}

function compareVectors(a: Vector, b: Vector): number {
  const size = (v: Vector) => v.reduce((n, axis) => n * axis.length, 1);
  if (size(a) !== size(b)) return size(b) - size(a);
  for (let d = 0; d < a.length; d++) {
    const [x, y] = [a[d], b[d]];
    const c = y.length - x.length || byCodeUnits(x[0], y[0]) || byCodeUnits(x[x.length - 1], y[y.length - 1]);
    if (c !== 0) return c;
  }
  return 0;
}

/** The merged vector when the two differ on at most one axis (disjoint there, or one containing the other). */
function mergePair(a: Vector, b: Vector): Vector | null {
  let diffs = 0;
  const out: Axis[] = [];
  for (let d = 0; d < a.length; d++) {
    const [x, y] = [a[d], b[d]];
    const ys = new Set(y);
    const common = x.filter((v) => ys.has(v)).length;
    if (common === x.length && common === y.length) {
      out.push(x);
      continue;
    }
    const contained = common === Math.min(x.length, y.length);
    if (common > 0 && !contained) return null;
    if (++diffs > 1) return null;
    out.push(common === 0 ? sortAxis([...x, ...y]) : x.length > y.length ? x : y);
  }
  return out;
}
