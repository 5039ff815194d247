// Splits what a login node's srun/pdsh/clush prints into one stream per compute node, as it arrives.
//
// stdout lines are `host: line` (pdsh, clush) or ` 3: line` (srun --label: the task number, which
// the node's `B` line maps to its Slurm node name). A node's stream is the base64 lines between its
// `B` and `E` lines (loginScript.ts), decoded as they come; anything else it printed before `B`
// (login-shell noise) is kept as a note. When a node's `E` line arrives its stream is complete and
// `onNodeEnded` gets it at once, so a run's nodes are parsed while the others still run and only the
// nodes in flight hold their raw streams (nodeStream.ts bounds each). stderr lines are the nodes'
// own (same prefixes) or the tool's (`pdsh@login: host: …`, `clush: gpu[02,05] (2): …`, `srun: error:
// …`), and a tool's line naming a node belongs to it; a line that can only be placed once the run is
// known (srun's task lines, the tool's) waits for end(). Nothing here throws on any input.
//
// Node names come back from the nodes themselves (a `B` line, Slurm's step node list) and later
// become SSH destinations (a fleet's quick fix), so a name is taken only when it is one of the nodes
// the run was for: the host list given, or, for a Slurm allocation given by job id alone, the node
// list the login node's squeue printed (`<T> L <list>`). Any other name is refused with an error line
// (`refused`) and what was printed under it is dropped. Only srun choosing nodes itself (a node count,
// no list) leaves no list to check against: there each name is taken once, from the task srun
// labelled, and a second task claiming the same name is refused.
//
// A name is claimed once, in every mode. With pdsh and clush each node has a key of its own
// (loginScript.ts), and a line is taken for a node only when it carries that node's key: a frame line
// with the run's tag but not the node's key (a forgery, through pdsh's glued lines, by a node that knows
// the tag but not the key) contests the node. So does a second start line for a node, and a second srun
// task claiming a name. A contested node is flagged, with the node the forgery came from when that is
// known (the glued line's own node): nothing either printed is used (`contested`).
import { expandHostList, foldHostList } from '../../parsers/hostlist';
import type { RelayTool } from './tools';
import type { StreamBudget } from '../../probe/streamBudget';
import { Contest, LineSplitter, MessageLines, NodeStream } from './nodeStream';

export { NodeStream } from './nodeStream';
export type { Contest } from './nodeStream';

/** Most refusal lines kept (a hostile srun could claim any number of names). */
const MAX_REFUSED = 100;

const NODE_PREFIX = /^(\S+?): (.*)$/s;
const TASK_PREFIX = /^ *(\d+): (.*)$/s;
const BASE64 = /^[A-Za-z0-9+/=]*$/;
const TOOL_LINE: Record<RelayTool, RegExp> = {
  pdsh: /^pdsh@\S+: (?:(\S+?): )?(.*)$/s,
  clush: /^clush: (?:(\S+?)(?: \(\d+\))?: )?(.*)$/s,
  slurm: /^srun: (.*)$/s,
};

export class RelayDemux {
  readonly nodes = new Map<string, NodeStream>();
  /** Slurm nodes left out by the login script: name → state (`drained`, `down*`, …). */
  readonly skipped = new Map<string, string>();
  /** The tool's exit code (`none`: not run), when the login script got to its end. */
  toolExit?: string;
  /** stderr lines about no node in particular (srun: invalid partition, pdsh: command not found). */
  readonly toolLines = new MessageLines();
  /** The nodes a name must be one of; undefined: not known (srun picked the nodes). */
  expected?: ReadonlySet<string>;
  /** One line per name that is not among the expected nodes (see the top of this file). */
  readonly refused: string[] = [];
  /** Nodes whose stream was contested (see the top of this file): name → why. */
  readonly contested = new Map<string, Contest>();
  private readonly byTask = new Map<string, NodeStream | null>();
  private readonly claimed = new Set<string>();
  private readonly laterStderr = new MessageLines();
  private readonly stdout = new LineSplitter((l) => this.stdoutLine(l.toString('latin1')));
  private readonly stderr = new LineSplitter((l) => this.stderrArrived(l.toString('utf8')));
  private expectedText?: string;

  /**
   * `expected`: the nodes the run was for, when known (pdsh, clush, srun with a nodelist); Slurm's
   * step node list from any `B` line adds the nodes srun chose. Only these and the nodes that printed
   * get stderr lines, so a tool's own message (`sh: 1: pdsh: not found`) is never taken for a node.
   */
  constructor(
    private readonly tool: RelayTool,
    private readonly tag: string,
    expected: readonly string[] = [],
    private readonly onNodeEnded?: (node: NodeStream) => void,
    /** pdsh, clush: each node's key (loginScript.ts nodeKeys); without, lines carry the run's tag alone. */
    private readonly keys?: ReadonlyMap<string, string>,
    /** What the nodes' streams held at once take from (streamBudget.ts); default the process's own. */
    private readonly budget?: StreamBudget,
  ) {
    this.expected = expected.length > 0 ? new Set(expected) : undefined;
    for (const name of expected) this.nodeOf(name);
  }

  get toolMessages(): string[] {
    return this.toolLines.all();
  }

  pushStdout(chunk: Buffer): void {
    this.stdout.push(chunk);
  }

  pushStderr(chunk: Buffer): void {
    this.stderr.push(chunk);
  }

  /** The run is over: the last partial lines, the nodes srun chose, the stderr lines that waited. */
  end(): void {
    this.stdout.end();
    this.stderr.end();
    if (this.expected === undefined) {
      for (const list of new Set([...this.nodes.values()].map((n) => n.stepNodeList))) {
        if (list !== undefined) for (const name of namesIn(list)) this.nodeOf(name);
      }
    }
    for (const line of this.laterStderr.lines) this.stderrLine(line);
    if (this.laterStderr.cutLines > 0) this.toolLines.push(`(${this.laterStderr.cutLines} more stderr lines cut)`);
  }

  /** Lets go of every node's stream still held (the run is over: what was not parsed never will be). */
  dropStreams(): void {
    for (const node of this.nodes.values()) node.data.take();
  }

  nodeOf(name: string): NodeStream {
    let n = this.nodes.get(name);
    if (!n) {
      n = new NodeStream(name, this.budget);
      this.nodes.set(name, n);
    }
    return n;
  }

  private stdoutLine(line: string): void {
    if (line.startsWith(`${this.tag} `)) this.loginLine(line.slice(this.tag.length + 1));
    else if (this.tool === 'slurm') this.taskLine(line);
    else this.hostLine(line);
  }

  /** The login node's own lines: S (Slurm left a node out), L (the allocation's nodes, from squeue), X (the tool's exit). */
  private loginLine(rest: string): void {
    const [verb, name, ...state] = rest.split(' ');
    if (verb === 'S' && name) this.skipped.set(name, state.join(' '));
    else if (verb === 'X') this.toolExit = name ?? '';
    else if (verb === 'L' && name && this.expected === undefined) this.expected = new Set(namesIn(name));
  }

  /**
   * The stream of a node named in the output, or undefined (and one error line) when the name is not
   * among the expected nodes, or is in `claimed` (the names srun's tasks took already).
   */
  private acceptedNode(name: string, claimed?: ReadonlySet<string>): NodeStream | undefined {
    const why =
      this.expected !== undefined && !this.expected.has(name)
        ? `which is not among the nodes asked for (${(this.expectedText ??= foldHostList([...this.expected]))})`
        : claimed?.has(name)
          ? 'which another task already reported'
          : undefined;
    if (why === undefined) return this.nodeOf(name);
    const line = `output for node ${JSON.stringify(name)}, ${why}: refused, not used`;
    if (this.refused.length < MAX_REFUSED && !this.refused.includes(line)) this.refused.push(line);
    return undefined;
  }

  /** `via`: the node whose line this one was glued to (gluedLine): it printed this line, whatever the prefix says. */
  private hostLine(line: string, via?: string): void {
    const m = NODE_PREFIX.exec(line);
    if (!m) {
      this.toolLines.push(line);
      return;
    }
    const glued = this.gluedLine(m[2]);
    const node = this.acceptedNode(m[1]);
    if (node) this.streamLine(node, glued?.partial ?? m[2], via);
    if (glued) this.hostLine(glued.rest, m[1]);
  }

  /**
   * pdsh prints what a node wrote before it died (a dropped connection mid-line) without a newline,
   * so the next node's line is glued to it: `n3: QUJDn1: <tag> B n1`. Split there, so one node's
   * death never costs another node a line: the cut part is base64 or a frame line (no `: ` in
   * either), followed by a node of this run and `: `.
   */
  private gluedLine(text: string): { partial: string; rest: string } | undefined {
    const colon = text.indexOf(': ');
    if (colon < 0) return undefined;
    const token = text.slice(text.lastIndexOf(' ', colon - 1) + 1, colon);
    // The longest node name the token ends with (and is longer than).
    let name: string | undefined;
    for (let i = 1; i < token.length && name === undefined; i++) if (this.nodes.has(token.slice(i))) name = token.slice(i);
    if (name === undefined) return undefined;
    const partial = text.slice(0, colon - name.length);
    if (!BASE64.test(partial) && !partial.startsWith(`${this.tag} `)) return undefined;
    return { partial, rest: text.slice(colon - name.length) };
  }

  private taskLine(line: string): void {
    const m = TASK_PREFIX.exec(line);
    if (!m) {
      this.toolLines.push(line);
      return;
    }
    const begin = new RegExp(`^${this.tag} B (\\S+) ?(\\S*)`).exec(m[2]);
    if (begin && !this.byTask.has(m[1])) {
      const node = this.acceptedNode(begin[1], this.claimed) ?? null;
      this.byTask.set(m[1], node);
      if (node) this.claimed.add(node.name);
      else if (this.claimed.has(begin[1])) this.contest(begin[1], { why: 'two-tasks', other: `task ${m[1]}` });
    }
    const node = this.byTask.get(m[1]);
    if (node) this.streamLine(node, m[2]);
    else if (node === undefined) this.toolLines.push(`task ${m[1]}: ${m[2]}`);
    // null: the task named a node it may not speak for; what it prints is dropped.
  }

  /**
   * One line of a node's stdout: its B/E frame (`<tag>[.<key>] B|E …`), a base64 line inside (after `<key> `
   * where nodes have keys), a frame without the node's key (the node is contested), or noise around.
   */
  private streamLine(node: NodeStream, text: string, via?: string): void {
    const body = text.replace(/\r$/, '');
    const key = this.keys?.get(node.name);
    const frame = key === undefined ? `${this.tag} ` : `${this.tag}.${key} `;
    if (body.startsWith(frame)) this.frameLine(node, body.slice(frame.length), via);
    else if (body.startsWith(this.tag)) this.forged(node, via);
    else if (key === undefined && node.began && !node.ended && BASE64.test(body)) node.data.addBase64(body);
    else if (key !== undefined && body.startsWith(`${key} `) && node.began && !node.ended && BASE64.test(body.slice(key.length + 1)))
      node.data.addBase64(body.slice(key.length + 1));
    else node.messageLines.push(Buffer.from(text, 'latin1').toString('utf8'));
  }

  /** `B <name> <list>` (a second one contests the node) or `E <exit code>`. */
  private frameLine(node: NodeStream, rest: string, via: string | undefined): void {
    if (rest.startsWith('B ')) {
      if (node.began)
        this.contest(node.name, via !== undefined && via !== node.name ? { why: 'forged', other: via } : { why: 'second-start' }, via);
      node.began = true;
      const list = rest.split(' ')[2];
      if (list) node.stepNodeList = list;
    } else if (rest.startsWith('E ') && !node.ended) {
      node.ended = true;
      const rc = rest.slice(2);
      node.exitCode = /^\d{1,3}$/.test(rc) ? Number(rc) : null;
      this.onNodeEnded?.(node);
    }
  }

  /** A relay frame for `node` without its key: printed by the node itself, or glued after `via`'s line. */
  private forged(node: NodeStream, via: string | undefined): void {
    if (via !== undefined && via !== node.name) this.contest(node.name, { why: 'forged', other: via }, via);
    else this.contest(node.name, { why: 'unkeyed' });
  }

  /** Flags `name` (and `by`, the node that printed the claim, when known and another): nothing either printed is used. */
  private contest(name: string, contest: Contest, by?: string): void {
    if (!this.contested.has(name)) this.contested.set(name, contest);
    if (by !== undefined && by !== name && !this.contested.has(by)) this.contested.set(by, { why: 'forger', other: name });
  }

  /** A node's own stderr line goes to it at once; the nodes' heartbeats are dropped; the rest waits for end(). */
  private stderrArrived(line: string): void {
    if (line.replace(/\r$/, '').endsWith(`: ${this.tag} H`)) return;
    const m = this.tool === 'slurm' || TOOL_LINE[this.tool].test(line) ? null : NODE_PREFIX.exec(line);
    const node = m ? this.nodes.get(m[1]) : undefined;
    if (node && m) node.messageLines.push(m[2]);
    else this.laterStderr.push(line);
  }

  private stderrLine(line: string): void {
    const toolMatch = TOOL_LINE[this.tool].exec(line);
    if (toolMatch) {
      const named = this.tool === 'slurm' || !toolMatch[1] ? [] : namesIn(toolMatch[1]).filter((n) => this.nodes.has(n));
      const targets = named.length > 0 ? named : this.nodesMentioned(line);
      if (targets.length === 0) this.toolLines.push(line);
      for (const t of targets) this.nodeOf(t).messageLines.push(line);
      return;
    }
    const m = (this.tool === 'slurm' ? TASK_PREFIX : NODE_PREFIX).exec(line);
    const node = m ? (this.tool === 'slurm' ? this.byTask.get(m[1]) : this.nodes.get(m[1])) : undefined;
    if (node === null) return; // a task whose node name was refused
    if (node && m) node.messageLines.push(m[2]);
    else this.toolLines.push(line);
  }

  /**
   * Nodes already known that a tool's message names as a whole word: not inside a longer name (letters,
   * digits, `.`, `_`, `-` around it), though a `.` may follow (the end of a sentence, a domain).
   */
  private nodesMentioned(line: string): string[] {
    const found = new Set<string>();
    for (const word of line.split(/[^A-Za-z0-9._-]+/)) {
      for (let dot = word.indexOf('.'); dot >= 0; dot = word.indexOf('.', dot + 1))
        if (this.nodes.has(word.slice(0, dot))) found.add(word.slice(0, dot));
      if (this.nodes.has(word)) found.add(word);
    }
    return [...found];
  }
}

/** Splits a whole run's output at once (tests, and any caller without a stream). */
export function demux(
  tool: RelayTool,
  tag: string,
  out: { stdout: Buffer; stderr: Buffer },
  expected: readonly string[] = [],
  keys?: ReadonlyMap<string, string>,
): RelayDemux {
  const d = new RelayDemux(tool, tag, expected, undefined, keys);
  d.pushStdout(out.stdout);
  d.pushStderr(out.stderr);
  d.end();
  return d;
}

/** A folded ClusterShell node set (`gpu[02,05]`), or the name as it is when it does not unfold. */
function namesIn(text: string): string[] {
  try {
    return expandHostList(text);
  } catch {
    return [];
  }
}
