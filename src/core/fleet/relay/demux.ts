// Splits what a login node's srun/pdsh/clush printed into one stream per compute node.
//
// stdout lines are `host: line` (pdsh, clush) or ` 3: line` (srun --label: the task number, which
// the node's `B` line maps to its Slurm node name). A node's stream is the base64 lines between its
// `B` and `E` lines (loginScript.ts); anything else it printed before `B` (login-shell noise) is
// kept as a note. stderr lines are the nodes' own (same prefixes) or the tool's (`pdsh@login: host:
// …`, `clush: gpu[02,05] (2): …`, `srun: error: …`), and a tool's line naming a node belongs to it.
// Nothing here throws on any input.
//
// Node names come back from the nodes themselves (a `B` line, Slurm's step node list) and later
// become SSH destinations (a fleet's quick fix), so a name is taken only when it is one of the nodes
// the run was for: the host list given, or, for a Slurm allocation given by job id alone, the node
// list the login node's squeue printed (`<T> L <list>`). Any other name is refused with an error line
// (`refused`) and what was printed under it is dropped. Only srun choosing nodes itself (a node count,
// no list) leaves no list to check against: there each name is taken once, from the task srun
// labelled, and a second task claiming the same name is refused.
import { expandHostList, foldHostList } from '../hostlist';
import type { RelayTool } from './loginScript';

export interface NodeStream {
  readonly name: string;
  began: boolean;
  ended: boolean;
  exitCode: number | null;
  /** base64 lines of the probe's stdout, in order. */
  readonly data: string[];
  /** The node's own stderr and the tool's messages about it. */
  readonly messages: string[];
  /** Slurm: the step's node list from the node's `B` line. */
  stepNodeList?: string;
}

export interface Demuxed {
  readonly nodes: Map<string, NodeStream>;
  /** Slurm nodes left out by the login script: name → state (`drained`, `down*`, …). */
  readonly skipped: Map<string, string>;
  /** The tool's exit code (`none`: not run), when the login script got to its end. */
  toolExit?: string;
  /** stderr lines about no node in particular (srun: invalid partition, pdsh: command not found). */
  readonly toolMessages: string[];
  /** The nodes a name must be one of; undefined: not known (srun picked the nodes). */
  expected?: ReadonlySet<string>;
  /** One line per name that is not among the expected nodes (see the top of this file). */
  readonly refused: string[];
}

const NODE_PREFIX = /^(\S+?): (.*)$/s;
const TASK_PREFIX = /^ *(\d+): (.*)$/s;
const TOOL_LINE: Record<RelayTool, RegExp> = {
  pdsh: /^pdsh@\S+: (?:(\S+?): )?(.*)$/s,
  clush: /^clush: (?:(\S+?)(?: \(\d+\))?: )?(.*)$/s,
  slurm: /^srun: (.*)$/s,
};

/**
 * `expected`: the nodes the run was for, when known (pdsh, clush, srun with a nodelist); Slurm's
 * step node list from any `B` line adds the nodes srun chose. Only these and the nodes that printed
 * get stderr lines, so a tool's own message (`sh: 1: pdsh: not found`) is never taken for a node.
 */
export function demux(tool: RelayTool, tag: string, out: { stdout: Buffer; stderr: Buffer }, expected: readonly string[] = []): Demuxed {
  const d: Demuxed = { nodes: new Map(), skipped: new Map(), toolMessages: [], refused: [], expected: expected.length > 0 ? new Set(expected) : undefined };
  for (const name of expected) nodeOf(d, name);
  const byTask = new Map<string, NodeStream | null>();
  for (const line of lines(out.stdout, 'latin1')) {
    if (line.startsWith(`${tag} `)) loginLine(d, line.slice(tag.length + 1));
    else if (tool === 'slurm') taskLine(d, byTask, tag, line);
    else hostLine(d, tag, line);
  }
  // srun picked the nodes: its step's node list (as the nodes report it) names those that printed nothing.
  if (d.expected === undefined) {
    for (const list of new Set([...d.nodes.values()].map((n) => n.stepNodeList))) {
      if (list !== undefined) for (const name of namesIn(list)) nodeOf(d, name);
    }
  }
  // The nodes' heartbeats (loginScript.ts) say only that the stream is alive.
  for (const line of lines(out.stderr, 'utf8')) if (!line.replace(/\r$/, '').endsWith(`: ${tag} H`)) stderrLine(d, tool, byTask, line);
  return d;
}

export function nodeOf(d: Demuxed, name: string): NodeStream {
  let n = d.nodes.get(name);
  if (!n) {
    n = { name, began: false, ended: false, exitCode: null, data: [], messages: [] };
    d.nodes.set(name, n);
  }
  return n;
}

function lines(buf: Buffer, encoding: BufferEncoding): string[] {
  const all = buf.toString(encoding).split('\n');
  if (all[all.length - 1] === '') all.pop();
  return all;
}

/** The login node's own lines: S (Slurm left a node out), L (the allocation's nodes, from squeue), X (the tool's exit). */
function loginLine(d: Demuxed, rest: string): void {
  const [verb, name, ...state] = rest.split(' ');
  if (verb === 'S' && name) d.skipped.set(name, state.join(' '));
  else if (verb === 'X') d.toolExit = name ?? '';
  else if (verb === 'L' && name && d.expected === undefined) d.expected = new Set(namesIn(name));
}

/**
 * The stream of a node named in the output, or undefined (and one error line) when the name is not
 * among the expected nodes; `claimed`: a name srun's tasks already took, when there is no list.
 */
function acceptedNode(d: Demuxed, name: string, claimed?: ReadonlySet<string>): NodeStream | undefined {
  const why = d.expected !== undefined
    ? (d.expected.has(name) ? undefined : `which is not among the nodes asked for (${foldHostList([...d.expected])})`)
    : (claimed?.has(name) ? 'which another task already reported' : undefined);
  if (why === undefined) return nodeOf(d, name);
  const line = `output for node ${JSON.stringify(name)}, ${why}: refused, not used`;
  if (!d.refused.includes(line)) d.refused.push(line);
  return undefined;
}

function hostLine(d: Demuxed, tag: string, line: string): void {
  const m = NODE_PREFIX.exec(line);
  if (!m) {
    d.toolMessages.push(line);
    return;
  }
  const glued = gluedLine(d, tag, m[2]);
  const node = acceptedNode(d, m[1]);
  if (node) streamLine(node, tag, glued?.partial ?? m[2]);
  if (glued) hostLine(d, tag, glued.rest);
}

/**
 * pdsh prints what a node wrote before it died (a dropped connection mid-line) without a newline,
 * so the next node's line is glued to it: `n3: QUJDn1: <tag> B n1`. Split there, so one node's
 * death never costs another node a line: the cut part is base64 or a frame line (no `: ` in
 * either), followed by a node of this run and `: `.
 */
function gluedLine(d: Demuxed, tag: string, text: string): { partial: string; rest: string } | undefined {
  const colon = text.indexOf(': ');
  if (colon < 0) return undefined;
  const token = text.slice(text.lastIndexOf(' ', colon - 1) + 1, colon);
  const name = [...d.nodes.keys()].filter((n) => token.endsWith(n) && token.length > n.length).sort((a, b) => b.length - a.length)[0];
  if (name === undefined) return undefined;
  const partial = text.slice(0, colon - name.length);
  if (!/^[A-Za-z0-9+/=]+$/.test(partial) && !partial.startsWith(`${tag} `)) return undefined;
  return { partial, rest: text.slice(colon - name.length) };
}

function taskLine(d: Demuxed, byTask: Map<string, NodeStream | null>, tag: string, line: string): void {
  const m = TASK_PREFIX.exec(line);
  if (!m) {
    d.toolMessages.push(line);
    return;
  }
  const begin = new RegExp(`^${tag} B (\\S+) ?(\\S*)`).exec(m[2]);
  if (begin && !byTask.has(m[1])) {
    const claimed = new Set([...byTask.values()].flatMap((n) => (n ? [n.name] : [])));
    byTask.set(m[1], acceptedNode(d, begin[1], claimed) ?? null);
  }
  const node = byTask.get(m[1]);
  if (node) streamLine(node, tag, m[2]);
  else if (node === undefined) d.toolMessages.push(`task ${m[1]}: ${m[2]}`);
  // null: the task named a node it may not speak for; what it prints is dropped.
}

/** One line of a node's stdout: its B/E frame, a base64 line inside, or noise around. */
function streamLine(node: NodeStream, tag: string, text: string): void {
  const body = text.replace(/\r$/, '');
  if (body.startsWith(`${tag} B `)) {
    node.began = true;
    const list = body.split(' ')[3];
    if (list) node.stepNodeList = list;
  } else if (body.startsWith(`${tag} E `)) {
    node.ended = true;
    const rc = body.slice(tag.length + 3);
    node.exitCode = /^\d{1,3}$/.test(rc) ? Number(rc) : null;
  } else if (node.began && !node.ended && /^[A-Za-z0-9+/=]*$/.test(body)) {
    node.data.push(body);
  } else {
    node.messages.push(Buffer.from(text, 'latin1').toString('utf8'));
  }
}

function stderrLine(d: Demuxed, tool: RelayTool, byTask: Map<string, NodeStream | null>, line: string): void {
  const toolMatch = TOOL_LINE[tool].exec(line);
  if (toolMatch) {
    const named = tool === 'slurm' || !toolMatch[1] ? [] : namesIn(toolMatch[1]).filter((n) => d.nodes.has(n));
    const targets = named.length > 0 ? named : nodesMentioned(d, line);
    if (targets.length === 0) d.toolMessages.push(line);
    for (const t of targets) nodeOf(d, t).messages.push(line);
    return;
  }
  const m = (tool === 'slurm' ? TASK_PREFIX : NODE_PREFIX).exec(line);
  const node = m ? (tool === 'slurm' ? byTask.get(m[1]) : d.nodes.get(m[1])) : undefined;
  if (node === null) return; // a task whose node name was refused
  if (node && m) node.messages.push(m[2]);
  else d.toolMessages.push(line);
}

/** A folded ClusterShell node set (`gpu[02,05]`), or the name as it is when it does not unfold. */
function namesIn(text: string): string[] {
  try {
    return expandHostList(text);
  } catch {
    return [];
  }
}

/** Nodes already known (from stdout) that a tool's message names as a whole word. */
function nodesMentioned(d: Demuxed, line: string): string[] {
  return [...d.nodes.keys()].filter((n) => new RegExp(`(^|[^A-Za-z0-9._-])${escapeRegExp(n)}($|[^A-Za-z0-9_-])`).test(line));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
