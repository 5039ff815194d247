// NCCL's XML topology (what NCCL_TOPO_FILE and /var/run/nvidia-topologyd/virtualTopology.xml hold, and
// what NCCL_TOPO_DUMP_FILE writes), read the way src/graph/xml.cc reads it: elements with `key="value"`
// or `key='value'` attributes (no blanks around `=`), `<?…?>` and `<!--…-->` skipped. One pass over the
// text; nodes, depth, attributes and value lengths are capped as NCCL caps them or tighter.
import { Parsed, fail, ok, quote } from '../../parsers/result';

export interface XmlNode {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlNode[];
  /** 1-based line of the opening tag. */
  readonly line: number;
}

/** More than NCCL's own (NCCL_TOPO_XML_MAX_NODES) for any host; a bigger file is not a topology. */
const MAX_NODES = 4096;
const MAX_DEPTH = 32;
/** xml.h: MAX_STR_LEN 255, MAX_ATTR_COUNT 16. */
const MAX_STR_LEN = 255;
const MAX_ATTRS = 16;
const ATTR = /\s*([^\s=/>]{1,255})=(?:"([^"]{0,255})"|'([^']{0,255})')/y;

export function parseTopoXml(text: string, what: string): Parsed<XmlNode> {
  const root: XmlNode = { name: '', attrs: {}, children: [], line: 0 };
  const stack: XmlNode[] = [root];
  let count = 0;
  let line = 1;
  let at = 0;
  while (at < text.length) {
    const lt = text.indexOf('<', at);
    if (lt < 0) break;
    line += countNewlines(text, at, lt);
    const skipped = skipSpecial(text, lt);
    if (skipped !== null) {
      if (skipped < 0) return fail(line, `${what}: an unterminated <? or <!-- section`);
      line += countNewlines(text, lt, skipped);
      at = skipped;
      continue;
    }
    const gt = text.indexOf('>', lt);
    if (gt < 0) return fail(line, `${what}: an unterminated tag`);
    const tag = text.slice(lt + 1, gt);
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      if (stack.length < 2 || stack[stack.length - 1].name !== name) return fail(line, `${what}: unexpected closing tag ${quote(name)}`);
      stack.pop();
    } else {
      const node = element(tag, line, what);
      if (!node.ok) return node;
      if (++count > MAX_NODES) return fail(line, `${what}: more than ${MAX_NODES} elements`);
      stack[stack.length - 1].children.push(node.value);
      if (!tag.endsWith('/')) {
        if (stack.length > MAX_DEPTH) return fail(line, `${what}: nested deeper than ${MAX_DEPTH} elements`);
        stack.push(node.value);
      }
    }
    line += countNewlines(text, lt, gt);
    at = gt + 1;
  }
  if (stack.length > 1) return fail(line, `${what}: <${stack[stack.length - 1].name}> is not closed`);
  return ok(root);
}

/** A whole NCCL topology file (`gdr-doctor parse nccl-topo`): XML whose top element is NCCL's `<system>`. */
export function parseTopoXmlFile(text: string, what: string): Parsed<XmlNode> {
  const parsed = parseTopoXml(text, what);
  if (!parsed.ok) return parsed;
  if (!parsed.value.children.some((c) => c.name === 'system')) return fail(1, `${what}: no <system> element (NCCL's topology root)`);
  return parsed;
}

/** `<name a="1" b='2'>` or `<name …/>` without the brackets. */
function element(tag: string, line: number, what: string): Parsed<XmlNode> {
  const body = tag.endsWith('/') ? tag.slice(0, -1) : tag;
  const name = /^[^\s/>]{1,255}/.exec(body)?.[0];
  if (!name) return fail(line, `${what}: a tag without a name`);
  const attrs: Record<string, string> = {};
  let pos = name.length;
  for (let n = 0; ; n++) {
    ATTR.lastIndex = pos;
    const m = ATTR.exec(body);
    if (!m) break;
    if (n >= MAX_ATTRS) return fail(line, `${what}: <${name}> has more than ${MAX_ATTRS} attributes`);
    attrs[m[1]] = m[2] ?? m[3] ?? '';
    pos = ATTR.lastIndex;
  }
  if (body.slice(pos).trim() !== '') {
    return fail(line, `${what}: <${name}> has an attribute NCCL cannot read (key="value", at most ${MAX_STR_LEN} characters)`);
  }
  return ok({ name, attrs, children: [], line });
}

/** Past a `<?…?>` or `<!--…-->`: the index after it, -1 when unterminated, null when `lt` starts neither. */
function skipSpecial(text: string, lt: number): number | null {
  const close = text.startsWith('<?', lt) ? '?>' : text.startsWith('<!--', lt) ? '-->' : null;
  if (close === null) return null;
  const end = text.indexOf(close, lt + 2);
  return end < 0 ? -1 : end + close.length;
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Every element named `name` below `node`, depth first in document order. */
export function descendants(node: XmlNode, name: string): XmlNode[] {
  const out: XmlNode[] = [];
  const walk = (n: XmlNode) => {
    for (const c of n.children) {
      if (c.name === name) out.push(c);
      walk(c);
    }
  };
  walk(node);
  return out;
}
