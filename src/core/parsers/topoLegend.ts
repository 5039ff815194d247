// The blocks nvidia-smi prints under the matrix: `Legend:` (what each link token means, in the
// wording of that driver) and, on newer drivers, `NIC Legend:` (which RDMA device each NICn is).
// Anything else after the matrix (prompts, other commands' output) is ignored.
import { deviceNameProblem } from './deviceName';

export interface TopoLegendEntry {
  /** As printed, e.g. `NV#`, `SOC`. */
  readonly token: string;
  /** As printed, e.g. `Connection traversing a bonded set of # NVLinks`. */
  readonly meaning: string;
}

export interface TopoLegends {
  readonly legend: TopoLegendEntry[];
  /** `NIC0` → `mlx5_0`, from the `NIC Legend:` block. */
  readonly nicDevices: Map<string, string>;
  /** A NIC Legend entry whose device name is refused (deviceName.ts): its index in the lines read, and why. */
  readonly badEntry?: { readonly index: number; readonly message: string };
}

type Block = 'none' | 'legend' | 'nicLegend';

/** Reads both legend blocks from the lines that follow the matrix. */
export function readLegends(lines: readonly string[]): TopoLegends {
  const legend: TopoLegendEntry[] = [];
  const nicDevices = new Map<string, string>();
  let block: Block = 'none';
  for (let index = 0; index < lines.length; index++) {
    const trimmed = lines[index].trim();
    if (trimmed === '') continue;
    if (trimmed === 'Legend:') {
      block = 'legend';
      continue;
    }
    if (trimmed === 'NIC Legend:') {
      block = 'nicLegend';
      continue;
    }
    const taken = block === 'legend' ? takeLegendEntry(trimmed, legend) : block === 'nicLegend' && takeNicEntry(trimmed, nicDevices);
    if (typeof taken === 'string') return { legend, nicDevices, badEntry: { index, message: taken } };
    // The first line that is no entry ends the block: what follows is not nvidia-smi's.
    if (!taken) block = 'none';
  }
  return { legend, nicDevices };
}

function takeLegendEntry(trimmed: string, legend: TopoLegendEntry[]): boolean {
  const eq = trimmed.indexOf('=');
  const token = trimmed.slice(0, Math.max(eq, 0)).trim();
  if (eq <= 0 || /\s/.test(token)) return false;
  legend.push({ token, meaning: trimmed.slice(eq + 1).trim() });
  return true;
}

/** True when taken, false when the line is no entry, the problem when its device name is refused. */
function takeNicEntry(trimmed: string, nicDevices: Map<string, string>): boolean | string {
  const colon = trimmed.indexOf(':');
  const alias = trimmed.slice(0, Math.max(colon, 0)).trim();
  const device = trimmed.slice(colon + 1).trim();
  if (colon <= 0 || !/^NIC\d+$/.test(alias) || device === '' || /\s/.test(device)) return false;
  const badName = deviceNameProblem(device);
  if (badName !== null) return `${alias}: ${badName}`;
  if (!nicDevices.has(alias)) nicDevices.set(alias, device);
  return true;
}
