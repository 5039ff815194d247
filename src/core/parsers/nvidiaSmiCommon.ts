// Helpers shared by the nvidia-smi parsers (gpuQuery, smiQuery): recognising the messages
// nvidia-smi prints instead of its normal output, and reading the indentation tree of `-q`.

import { firstContentLine } from './result';

/**
 * Why nvidia-smi printed an error instead of data. Kept apart because the diagnosis must tell
 * "driver not loaded / not reachable" from "driver fine, no GPU visible" from "user-space and
 * kernel module disagree": each has a different fix.
 */
export type SmiErrorKind = 'driver-unreachable' | 'no-devices' | 'nvml-init-failed';

export interface SmiError {
  readonly kind: SmiErrorKind;
  /** The message as nvidia-smi printed it (first line, trimmed). */
  readonly message: string;
  /** 1-based line of the message. */
  readonly line: number;
}

const SMI_ERROR_PREFIXES: ReadonlyArray<readonly [string, SmiErrorKind]> = [
  ["NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver", 'driver-unreachable'],
  ['No devices were found', 'no-devices'],
  ['Failed to initialize NVML', 'nvml-init-failed'],
];

/**
 * Returns the nvidia-smi error when the first non-blank line is one of the known messages.
 * Only the first content line is looked at: these messages replace the whole output.
 */
export function detectSmiError(lines: readonly string[]): SmiError | undefined {
  const first = firstContentLine(lines);
  if (first < 0) return undefined;
  const text = lines[first].trim();
  for (const [prefix, kind] of SMI_ERROR_PREFIXES) {
    if (text.startsWith(prefix)) return { kind, message: text, line: first + 1 };
  }
  return undefined;
}

/** One line of an indentation-structured report (`nvidia-smi -q`). */
export interface TreeNode {
  readonly key: string;
  /** Text after the first ": " (trimmed); undefined for section headers such as "FB Memory Usage". */
  readonly value: string | undefined;
  /** 1-based line number. */
  readonly line: number;
  readonly indent: number;
  readonly children: TreeNode[];
}

/**
 * Reads lines into a forest by indentation, in one pass (a stack of open sections).
 * A line belongs to the nearest previous line with a smaller indentation. Blank lines are skipped.
 * `Key   : value` splits at the first colon followed by a space or the line end, so values may
 * contain colons (times, bus ids, Windows paths) and keys padded up to the colon still split.
 */
export function readIndentTree(lines: readonly string[], from = 0, to = lines.length): TreeNode[] {
  const roots: TreeNode[] = [];
  const stack: TreeNode[] = [];
  for (let i = from; i < to; i++) {
    const raw = lines[i];
    const content = raw.trim();
    if (content === '') continue;
    const indent = raw.length - raw.trimStart().length;
    // Properties one by one, not spread: V8 builds spread objects on a slow path (about ten times
    // the time for the whole tree), and a fleet parses one `-q` per node.
    const { key, value } = splitKeyValue(content);
    const node: TreeNode = { key, value, line: i + 1, indent, children: [] };
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    if (stack.length === 0) roots.push(node);
    else stack[stack.length - 1].children.push(node);
    stack.push(node);
  }
  return roots;
}

function splitKeyValue(content: string): { key: string; value: string | undefined } {
  const colon = content.indexOf(': ');
  if (colon >= 0) return { key: content.slice(0, colon).trim(), value: content.slice(colon + 2).trim() };
  if (content.endsWith(':')) return { key: content.slice(0, -1).trim(), value: '' };
  return { key: content, value: undefined };
}

/** The first child with this key (exact, case-sensitive: nvidia-smi's labels are fixed). */
export function child(node: TreeNode | undefined, key: string): TreeNode | undefined {
  return node?.children.find((c) => c.key === key);
}

/** The value at a key path below a node, e.g. valueAt(gpu, 'PCI', 'Bus Id'). */
export function valueAt(node: TreeNode | undefined, ...path: string[]): string | undefined {
  let current = node;
  for (const key of path) current = child(current, key);
  return current?.value;
}

/** The last line number inside a node's subtree (where a cut-off section stops). */
export function lastLine(node: TreeNode): number {
  let current = node;
  while (current.children.length > 0) current = current.children[current.children.length - 1];
  return current.line;
}
