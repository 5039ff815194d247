// NCCL versions as gdr-doctor reasons about them: what the user says their jobs use ("2.21",
// "2.21.5", "v2.21.5-1", or nothing: the newest release whose source was read for this model).

export interface NcclVersion {
  readonly major: number;
  readonly minor: number;
  /** null when the user gave only major.minor: every rule then takes that minor's newest patch. */
  readonly patch: number | null;
}

/** The release whose source (NVIDIA/nccl tag v2.30.7-1) the model follows; verdicts assume it by default. */
export const NEWEST_NCCL: NcclVersion = { major: 2, minor: 30, patch: 7 };

/** The oldest release the model describes: 2.7 introduced the path classes of `src/graph/paths.cc` it follows. */
export const OLDEST_MODELLED_NCCL: NcclVersion = { major: 2, minor: 7, patch: 3 };

const VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-\d+)?$/;

/** Parses `2.21`, `2.21.5`, `v2.21.5-1`; null for anything else. */
export function parseNcclVersion(text: string): NcclVersion | null {
  const m = VERSION.exec(text.trim());
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] === undefined ? null : Number(m[3]) };
}

/** `2.21.5`, or `2.21` when no patch was given. */
export function formatNcclVersion(v: NcclVersion): string {
  return v.patch === null ? `${v.major}.${v.minor}` : `${v.major}.${v.minor}.${v.patch}`;
}

/** Whether `v` is at least `major.minor.patch`; a version without patch counts as that minor's newest. */
export function atLeast(v: NcclVersion, major: number, minor: number, patch = 0): boolean {
  if (v.major !== major) return v.major > major;
  if (v.minor !== minor) return v.minor > minor;
  return v.patch === null || v.patch >= patch;
}

export function sameVersion(a: NcclVersion, b: NcclVersion): boolean {
  return a.major === b.major && a.minor === b.minor && a.patch === b.patch;
}
