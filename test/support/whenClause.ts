// Evaluates VS Code `when` clauses as package.json writes them, for unit tests over the manifest: keys,
// `!`, `==`, `!=`, `=~ /regex/flags`, `&&`, `||`, parentheses, `true`/`false`. VS Code's own grammar is
// larger (`in`, `<`, …); a clause using more fails to parse here, so a test never passes on a misread.
export type WhenContext = Readonly<Record<string, string | boolean | undefined>>;

type Token = { kind: 'op'; text: string } | { kind: 'word'; text: string } | { kind: 'regex'; re: RegExp };

function tokenize(clause: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < clause.length) {
    const rest = clause.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const op = /^(&&|\|\||==|!=|=~|!|\(|\))/.exec(rest);
    if (op) {
      tokens.push({ kind: 'op', text: op[1] });
      i += op[1].length;
      // A regex follows `=~`: read it whole, since it may hold `|`, `(` or spaces.
      if (op[1] === '=~') {
        const re = /^\s*\/((?:\\.|[^/\\])*)\/([a-z]*)/.exec(clause.slice(i));
        if (!re) throw new Error(`no regex after =~ in ${clause}`);
        tokens.push({ kind: 'regex', re: new RegExp(re[1], re[2]) });
        i += re[0].length;
      }
      continue;
    }
    const word = /^('[^']*'|[\w.\-:]+)/.exec(rest);
    if (!word) throw new Error(`cannot read "${rest}" in ${clause}`);
    tokens.push({ kind: 'word', text: word[1].replace(/^'(.*)'$/, '$1') });
    i += word[1].length;
  }
  return tokens;
}

/** Whether `clause` holds in `context` (a missing key is undefined, as in VS Code). */
export function evaluateWhen(clause: string, context: WhenContext): boolean {
  const tokens = tokenize(clause);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (text: string) => peek()?.kind === 'op' && (peek() as { text: string }).text === text;
  const word = (): string => {
    const t = tokens[pos++];
    if (t?.kind !== 'word') throw new Error(`expected a word at token ${pos} of ${clause}`);
    return t.text;
  };
  const primary = (): boolean => {
    if (isOp('!')) {
      pos++;
      return !primary();
    }
    if (isOp('(')) {
      pos++;
      const v = or();
      if (!isOp(')')) throw new Error(`missing ) in ${clause}`);
      pos++;
      return v;
    }
    const key = word();
    if (key === 'true') return true;
    if (key === 'false') return false;
    const value = context[key];
    if (isOp('==') || isOp('!=')) {
      const negate = (tokens[pos++] as { text: string }).text === '!=';
      return (String(value) === word()) !== negate;
    }
    if (isOp('=~')) {
      pos++;
      const t = tokens[pos++];
      if (t?.kind !== 'regex') throw new Error(`expected a regex in ${clause}`);
      return typeof value === 'string' && t.re.test(value);
    }
    return value !== undefined && value !== false && value !== '';
  };
  const and = (): boolean => {
    let v = primary();
    while (isOp('&&')) {
      pos++;
      v = primary() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (isOp('||')) {
      pos++;
      v = and() || v;
    }
    return v;
  };
  const result = or();
  if (pos !== tokens.length) throw new Error(`unread tokens in ${clause}`);
  return result;
}
