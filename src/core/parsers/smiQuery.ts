// Parser for `nvidia-smi -q` (also `-q -d MEMORY[,PCI]` and `nvidia-smi -a`): reads the whole
// indentation tree, then picks the per-GPU memory (FB, BAR1) and PCI facts GPUDirect cares about.
// BAR1 maps GPU memory for peers; a 256 MiB BAR1 on a large GPU means large BAR is off.

import { Parsed, fail, ok, quote, readLines } from './result';
import { SmiError, TreeNode, child, detectSmiError, lastLine, readIndentTree, valueAt } from './nvidiaSmiCommon';

const WHAT = 'nvidia-smi -q';
const BANNER = /^=+NVSMI LOG=+$/;
const GPU_HEADER = /^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])$/;

export interface FbMemory {
  readonly total: string;
  /** Absent on drivers older than ≈ R510, which print no "Reserved" line. */
  readonly reserved?: string;
  readonly used: string;
  readonly free: string;
}

export interface Bar1Memory {
  readonly total: string;
  readonly used: string;
  /** Absent on systems that print only Total and Used (e.g. GB10). */
  readonly free?: string;
}

export interface SmiPci {
  readonly busId?: string;
  readonly linkGenerationCurrent?: string;
  readonly linkGenerationMax?: string;
  readonly linkWidthCurrent?: string;
  readonly linkWidthMax?: string;
}

export interface SmiProcess {
  readonly pid: number;
  /** `C` compute, `G` graphics, `C+G`, `M` MPS…; "" when not printed. */
  readonly type: string;
  readonly name: string;
  /** As printed (`26 MiB`). */
  readonly usedMemory: string;
}

export interface SmiGpu {
  /** From the section header `GPU 00000000:07:00.0`. */
  readonly busId: string;
  /** 1-based line of the section header. */
  readonly line: number;
  readonly productName?: string;
  readonly productBrand?: string;
  readonly productArchitecture?: string;
  /** "GPU UUID" (`GPU-b42dd28e-…`): the id DCGM exporter labels its series with. */
  readonly uuid?: string;
  /** "VBIOS Version" (`96.00.74.00.01`). */
  readonly vbiosVersion?: string;
  readonly persistenceMode?: string;
  readonly addressingMode?: string;
  /** "GPU C2C Mode" (drivers ≥ 550 on Grace superchips): `Enabled` when the GPU reaches its CPU over NVLink-C2C. */
  readonly c2cMode?: string;
  /** "GPU Virtualization Mode > Virtualization Mode" (e.g. None, Pass-Through, VGPU). */
  readonly virtualizationMode?: string;
  readonly migModeCurrent?: string;
  /** "Utilization > Gpu" as printed (`0 %`, `87 %`, `N/A`): whether the GPU is busy right now. */
  readonly utilizationGpu?: string;
  readonly pci: SmiPci;
  readonly fbMemory: FbMemory;
  readonly bar1Memory: Bar1Memory;
  /** The "Processes" section: what runs on the GPU now ([] for "Processes : None"); absent when not printed. */
  readonly processes?: readonly SmiProcess[];
}

export interface SmiQuery {
  /** `ok`, or the nvidia-smi error printed instead of the report (then gpus is empty). */
  readonly status: 'ok' | SmiError['kind'];
  readonly smiError?: SmiError;
  /** As printed; newer drivers append "[Deprecated; …]" — see kmdVersion. */
  readonly driverVersion?: string;
  readonly cudaVersion?: string;
  /** "KMD Version" printed by drivers ≥ 600 next to the deprecated "Driver Version". */
  readonly kmdVersion?: string;
  readonly attachedGpus: number;
  readonly gpus: readonly SmiGpu[];
}

/**
 * Every GPU section must carry "FB Memory Usage" (Total, Used, Free) and "BAR1 Memory Usage"
 * (Total, Used), and there must be as many GPU sections as "Attached GPUs" says; otherwise the
 * output was cut off (or the wrong -d selection was used) and the result is a ParseError at the
 * line where the incomplete section ends. A cut after the BAR1 section of the last GPU cannot be
 * seen and is harmless: everything this parser returns was read whole.
 */
export function parseSmiQuery(text: string): Parsed<SmiQuery> {
  const read = readLines(text, WHAT);
  if (!read.ok) return read;
  const lines = read.value;
  const smiError = detectSmiError(lines);
  if (smiError) return ok({ status: smiError.kind, smiError, attachedGpus: 0, gpus: [] });
  const start = lines.findIndex((l) => l.trim() !== '');
  if (start < 0) return fail(1, `${WHAT}: empty input; expected the "==============NVSMI LOG==============" banner`);
  if (!BANNER.test(lines[start].trim())) {
    return fail(start + 1, `${WHAT}: expected the "==============NVSMI LOG==============" banner, found ${quote(lines[start])}`);
  }
  const roots = readIndentTree(lines, start + 1);
  return readReport(roots, lines.length);
}

function readReport(roots: readonly TreeNode[], lineCount: number): Parsed<SmiQuery> {
  const attached = roots.find((n) => n.key === 'Attached GPUs');
  if (!attached) return fail(lineCount, `${WHAT}: no "Attached GPUs" line; the output ends before the GPU sections`);
  if (!/^\d+$/.test(attached.value ?? '')) {
    return fail(attached.line, `${WHAT}: expected a number of attached GPUs, found ${quote(attached.value ?? '')}`);
  }
  const attachedGpus = Number(attached.value);
  const gpus: SmiGpu[] = [];
  for (const node of roots) {
    if (!node.key.startsWith('GPU ') || node.value !== undefined) continue;
    if (gpus.length === attachedGpus) {
      return fail(node.line, `${WHAT}: more GPU sections than "Attached GPUs : ${attachedGpus}"; found ${quote(node.key)}`);
    }
    const gpu = readGpu(node);
    if (!gpu.ok) return gpu;
    gpus.push(gpu.value);
  }
  if (gpus.length < attachedGpus) {
    return fail(
      lineCount,
      `${WHAT}: output ends after ${gpus.length} of ${attachedGpus} GPU sections ("Attached GPUs : ${attachedGpus}"); it was cut off`,
    );
  }
  return ok({
    status: 'ok',
    ...optional('driverVersion', rootValue(roots, 'Driver Version')),
    ...optional('cudaVersion', rootValue(roots, 'CUDA Version')),
    ...optional('kmdVersion', rootValue(roots, 'KMD Version')),
    attachedGpus,
    gpus,
  });
}

function rootValue(roots: readonly TreeNode[], key: string): string | undefined {
  return roots.find((n) => n.key === key)?.value;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function readGpu(node: TreeNode): Parsed<SmiGpu> {
  const header = GPU_HEADER.exec(node.key);
  if (!header) return fail(node.line, `${WHAT}: expected a GPU section header like "GPU 00000000:07:00.0", found ${quote(node.key)}`);
  const fb = readMemory(node, 'FB Memory Usage', ['Total', 'Used', 'Free']);
  if (!fb.ok) return fb;
  const bar1 = readMemory(node, 'BAR1 Memory Usage', ['Total', 'Used']);
  if (!bar1.ok) return bar1;
  return ok({
    busId: header[1],
    line: node.line,
    ...optional('productName', valueAt(node, 'Product Name')),
    ...optional('productBrand', valueAt(node, 'Product Brand')),
    ...optional('productArchitecture', valueAt(node, 'Product Architecture')),
    ...optional('uuid', valueAt(node, 'GPU UUID')),
    ...optional('vbiosVersion', valueAt(node, 'VBIOS Version')),
    ...optional('persistenceMode', valueAt(node, 'Persistence Mode')),
    ...optional('addressingMode', valueAt(node, 'Addressing Mode')),
    ...optional('c2cMode', valueAt(node, 'GPU C2C Mode')),
    ...optional('virtualizationMode', valueAt(node, 'GPU Virtualization Mode', 'Virtualization Mode')),
    ...optional('migModeCurrent', valueAt(node, 'MIG Mode', 'Current')),
    ...optional('utilizationGpu', valueAt(node, 'Utilization', 'Gpu')),
    pci: readPci(child(node, 'PCI')),
    fbMemory: {
      total: fb.value['Total'],
      ...optional('reserved', fb.value['Reserved']),
      used: fb.value['Used'],
      free: fb.value['Free'],
    },
    bar1Memory: { total: bar1.value['Total'], used: bar1.value['Used'], ...optional('free', bar1.value['Free']) },
    ...readProcesses(child(node, 'Processes')),
  });
}

function readMemory(gpu: TreeNode, section: string, required: readonly string[]): Parsed<Record<string, string>> {
  const node = child(gpu, section);
  if (!node) {
    return fail(lastLine(gpu), `${WHAT}: GPU ${gpu.key.slice(4)} has no "${section}" section; the output was cut off or not a full -q`);
  }
  const values: Record<string, string> = {};
  for (const entry of node.children) if (entry.value !== undefined) values[entry.key] = entry.value;
  const missing = required.filter((key) => values[key] === undefined);
  if (missing.length > 0) {
    return fail(lastLine(node), `${WHAT}: "${section}" of GPU ${gpu.key.slice(4)} lacks ${missing.join(', ')}; the output was cut off`);
  }
  return ok(values);
}

function readPci(pci: TreeNode | undefined): SmiPci {
  const link = child(pci, 'GPU Link Info');
  return {
    ...optional('busId', valueAt(pci, 'Bus Id')),
    ...optional('linkGenerationCurrent', valueAt(link, 'PCIe Generation', 'Current')),
    ...optional('linkGenerationMax', valueAt(link, 'PCIe Generation', 'Max')),
    ...optional('linkWidthCurrent', valueAt(link, 'Link Width', 'Current')),
    ...optional('linkWidthMax', valueAt(link, 'Link Width', 'Max')),
  };
}

/** Each "Process ID : <pid>" with its Type, Name and Used GPU Memory lines below it. */
function readProcesses(node: TreeNode | undefined): { processes?: SmiProcess[] } {
  if (!node) return {};
  const processes = node.children
    .filter((c) => c.key === 'Process ID' && /^\d+$/.test(c.value ?? ''))
    .map((c) => ({
      pid: Number(c.value),
      type: valueAt(c, 'Type') ?? '',
      name: valueAt(c, 'Name') ?? '',
      usedMemory: valueAt(c, 'Used GPU Memory') ?? '',
    }));
  return { processes };
}

const UNIT_MIB: Readonly<Record<string, number>> = { KiB: 1 / 1024, MiB: 1, GiB: 1024 };

/** "81920 MiB" → 81920; undefined for "N/A" or anything else that is not a size. */
export function mib(value: string | undefined): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(KiB|MiB|GiB)$/.exec((value ?? '').trim());
  return match ? Number(match[1]) * UNIT_MIB[match[2]] : undefined;
}

/** The driver branch: "535.129.03" → 535, "610.60 [Deprecated; …]" → 610; undefined if none. */
export function driverMajor(version: string | undefined): number | undefined {
  const match = /^(\d+)\./.exec((version ?? '').trim());
  return match ? Number(match[1]) : undefined;
}
