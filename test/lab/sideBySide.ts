// Several checkouts of this repository may run the lab on one machine at once (worktrees of parallel
// work). GDR_LAB_SHIFT=k (1-7) moves every lab network's subnet up by 32·k, suffixes its bridge with
// `x<k>`, and gives its records their own file, so the same test run from two checkouts never shares
// a link, an address, a namespace or a records file. Unset or 0: names as the tests write them.
/** As net.ts's LabNetwork (not imported: net.ts depends on records.ts, which uses this file). */
interface LabNetwork {
  bridge: string;
  subnet: number;
}

export function labShift(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.GDR_LAB_SHIFT ?? '';
  if (text === '' || text === '0') return 0;
  if (!/^[1-7]$/.test(text)) throw new Error(`GDR_LAB_SHIFT must be 0-7: ${text}`);
  return Number(text);
}

export function shiftNetwork(n: LabNetwork, shift = labShift()): LabNetwork {
  if (shift === 0) return n;
  if (n.subnet > 31) throw new Error(`GDR_LAB_SHIFT needs lab subnets below 32: ${n.subnet}`);
  return { bridge: `${n.bridge}x${shift}`, subnet: n.subnet + 32 * shift };
}

export function shiftRecordsPath(recordsPath: string, shift = labShift()): string {
  return shift === 0 ? recordsPath : recordsPath.replace(/(\.json)?$/, `.shift${shift}$1`);
}
