// NCCL_VERSION_CODE as nccl-tests prints it (`nccl-library=22809`) and the release it stands for. NCCL's
// nccl.h: NCCL_VERSION(X,Y,Z) is X*10000 + Y*100 + Z from 2.9 on, X*1000 + Y*100 + Z before.

export function releaseOfCode(code: number): string | null {
  if (!Number.isInteger(code) || code <= 0) return null;
  const [major, rest] = code >= 10000 ? [Math.floor(code / 10000), code % 10000] : [Math.floor(code / 1000), code % 1000];
  return `${major}.${Math.floor(rest / 100)}.${rest % 100}`;
}

export function codeOfRelease(major: number, minor: number, patch: number): number {
  return major > 2 || (major === 2 && minor >= 9) ? major * 10000 + minor * 100 + patch : major * 1000 + minor * 100 + patch;
}

/** NCCL's own "NCCL version 2.28.9+cuda13.0" (rank 0, or every rank's INFO line), anywhere on a line. */
const NCCL_VERSION = /NCCL version (\d{1,3})\.(\d{1,3})\.(\d{1,3})/;

export function ncclVersionOnLine(text: string): number | null {
  const at = text.indexOf('NCCL version ');
  if (at < 0) return null;
  const m = NCCL_VERSION.exec(text.slice(at, at + 40));
  return m ? codeOfRelease(Number(m[1]), Number(m[2]), Number(m[3])) : null;
}
