// Counts the work a backtracking regular-expression engine does, so that a test can tell a linear
// pattern from a quadratic one by counting steps instead of timing them. A pattern is parsed
// (@eslint-community/regexpp) and compiled to a small backtracking machine, run the way irregexp runs
// it: every start position from lastIndex on, each alternative and each quantifier iteration in
// priority order, backtracking on failure. A step is one instruction executed; V8's optimisations only
// ever skip steps, so a pattern linear here is linear there, and one quadratic here (an ambiguous
// `\d+\S*\s*$` on a long line) is what made the reader take seconds on one line.
import { RegExpParser, type AST } from '@eslint-community/regexpp';

type Test = (c: number) => boolean;
type Insn =
  | { op: 'char'; test: Test }
  | { op: 'split'; first: number; second: number }
  | { op: 'jmp'; to: number }
  | { op: 'edge'; kind: 'start' | 'end' | 'word' | 'nonword' }
  | { op: 'look'; prog: Program; behind: boolean; negate: boolean; length: number }
  | { op: 'mark'; reg: number }
  | { op: 'progress'; reg: number }
  | { op: 'match' };
interface Program {
  readonly insns: Insn[];
  registers: number;
}

/** The steps spent went past the budget: the pattern backtracks more than linearly on this input. */
export class StepBudgetExceeded extends Error {}

export class StepCounter {
  steps = 0;
  constructor(public budget = Infinity) {}
  charge(n: number): void {
    this.steps += n;
    if (this.steps > this.budget) throw new StepBudgetExceeded(`over ${this.budget} steps`);
  }
}

const cache = new Map<string, Program>();

/** The start of the first match at or after `from` (-1: none), charging every step to `counter`. */
export function countedSearch(re: RegExp, text: string, from: number, counter: StepCounter): number {
  const key = `/${re.source}/${re.flags}`;
  let prog = cache.get(key);
  if (!prog) cache.set(key, (prog = compileRegExp(re)));
  const last = re.sticky ? from : text.length;
  for (let start = from; start <= last; start++) {
    if (run(prog, text, start, counter, null) >= 0) return start;
  }
  return -1;
}

export function compileRegExp(re: RegExp): Program {
  const pattern = new RegExpParser({ ecmaVersion: 2024 }).parsePattern(re.source, 0, re.source.length, { unicode: re.unicode });
  return compilePattern(pattern.alternatives, re.ignoreCase);
}

function compilePattern(alternatives: readonly AST.Alternative[], ignoreCase: boolean): Program {
  const prog: Program = { insns: [], registers: 0 };
  new Compiler(prog, ignoreCase).alternatives(alternatives);
  prog.insns.push({ op: 'match' });
  return prog;
}

class Compiler {
  constructor(
    private readonly prog: Program,
    private readonly ignoreCase: boolean,
  ) {}

  private emit(insn: Insn): number {
    this.prog.insns.push(insn);
    return this.prog.insns.length - 1;
  }

  private get here(): number {
    return this.prog.insns.length;
  }

  alternatives(alts: readonly AST.Alternative[]): void {
    const jumps: Insn[] = [];
    alts.forEach((alt, i) => {
      if (i === alts.length - 1) return alt.elements.forEach((e) => this.element(e));
      const split: Insn = { op: 'split', first: this.here + 1, second: 0 };
      this.emit(split);
      alt.elements.forEach((e) => this.element(e));
      const jmp: Insn = { op: 'jmp', to: 0 };
      this.emit(jmp);
      jumps.push(jmp);
      (split as { second: number }).second = this.here;
    });
    for (const j of jumps) (j as { to: number }).to = this.here;
  }

  private element(e: AST.Element): void {
    switch (e.type) {
      case 'Group':
      case 'CapturingGroup':
        return this.alternatives(e.alternatives);
      case 'Quantifier':
        return this.quantifier(e);
      case 'Assertion':
        return this.assertion(e);
      case 'Character':
      case 'CharacterSet':
      case 'CharacterClass':
        this.emit({ op: 'char', test: charTest(e, this.ignoreCase) });
        return;
      default:
        throw new Error(`regexSteps: unsupported ${e.type}`);
    }
  }

  private quantifier(q: AST.Quantifier): void {
    for (let i = 0; i < q.min; i++) this.element(q.element);
    if (q.max === Infinity) return this.star(q);
    const ends: Insn[] = [];
    for (let i = q.min; i < q.max; i++) {
      const split = { op: 'split', first: 0, second: 0 } as Insn & { first: number; second: number };
      this.emit(split);
      const body = this.here;
      this.element(q.element);
      Object.assign(split, q.greedy ? { first: body, second: -1 } : { first: -1, second: body });
      ends.push(split);
    }
    for (const s of ends as (Insn & { first: number; second: number })[]) {
      if (s.first === -1) s.first = this.here;
      else s.second = this.here;
    }
  }

  /** `x*`: an iteration that matched nothing ends the loop, as ECMAScript's RepeatMatcher does. */
  private star(q: AST.Quantifier): void {
    const reg = this.prog.registers++;
    const loop = this.here;
    const split = { op: 'split', first: 0, second: 0 } as Insn & { first: number; second: number };
    this.emit(split);
    const body = this.here;
    this.emit({ op: 'mark', reg });
    this.element(q.element);
    this.emit({ op: 'progress', reg });
    this.emit({ op: 'jmp', to: loop });
    Object.assign(split, q.greedy ? { first: body, second: this.here } : { first: this.here, second: body });
  }

  private assertion(a: AST.Assertion): void {
    switch (a.kind) {
      case 'start':
      case 'end':
        this.emit({ op: 'edge', kind: a.kind });
        return;
      case 'word':
        this.emit({ op: 'edge', kind: a.negate ? 'nonword' : 'word' });
        return;
      case 'lookahead':
      case 'lookbehind': {
        const prog = compilePattern(a.alternatives, this.ignoreCase);
        const length = a.kind === 'lookbehind' ? fixedLength(a.alternatives) : 0;
        this.emit({ op: 'look', prog, behind: a.kind === 'lookbehind', negate: a.negate, length });
      }
    }
  }
}

/** Lookbehinds here are fixed-length (`(?<!, )`): matched forwards from that many characters back. */
function fixedLength(alts: readonly AST.Alternative[]): number {
  const lengths = alts.map((alt) => alt.elements.reduce((n, e) => n + elementLength(e), 0));
  if (new Set(lengths).size !== 1) throw new Error('regexSteps: a lookbehind of varying length');
  return lengths[0];
}

function elementLength(e: AST.Element): number {
  if (e.type === 'Character' || e.type === 'CharacterSet' || e.type === 'CharacterClass') return 1;
  if (e.type === 'Quantifier' && e.min === e.max) return e.min * elementLength(e.element);
  if (e.type === 'Group' || e.type === 'CapturingGroup') return fixedLength(e.alternatives);
  throw new Error('regexSteps: a lookbehind of varying length');
}

const SPACES = new Set([9, 10, 11, 12, 13, 32, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);
const isSpace = (c: number) => SPACES.has(c) || (c >= 0x2000 && c <= 0x200a);
const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

function charTest(e: AST.Character | AST.CharacterSet | AST.CharacterClass | AST.CharacterClassRange, ignoreCase: boolean): Test {
  const base = rawTest(e);
  if (!ignoreCase) return base;
  return (c) =>
    base(c) || base(String.fromCharCode(c).toLowerCase().charCodeAt(0)) || base(String.fromCharCode(c).toUpperCase().charCodeAt(0));
}

function rawTest(e: AST.Node): Test {
  switch (e.type) {
    case 'Character':
      return (c) => c === e.value;
    case 'CharacterClassRange':
      return (c) => c >= e.min.value && c <= e.max.value;
    case 'CharacterSet': {
      if (e.kind === 'any') return (c) => c !== 10 && c !== 13 && c !== 0x2028 && c !== 0x2029;
      if (e.kind === 'property') throw new Error('regexSteps: unsupported \\p');
      const t: Test = e.kind === 'digit' ? (c) => c >= 48 && c <= 57 : e.kind === 'word' ? isWord : isSpace;
      return e.negate ? (c) => !t(c) : t;
    }
    case 'CharacterClass': {
      const tests = e.elements.map((x) => rawTest(x));
      return e.negate ? (c) => !tests.some((t) => t(c)) : (c) => tests.some((t) => t(c));
    }
    default:
      throw new Error(`regexSteps: unsupported ${e.type} in a class`);
  }
}

interface Thread {
  readonly pc: number;
  readonly pos: number;
  readonly regs: readonly number[];
}

/** Runs `prog` anchored at `start`; the end of the match, or -1. `end`: the match must end there (lookbehind). */
function run(prog: Program, text: string, start: number, counter: StepCounter, end: number | null): number {
  const stack: Thread[] = [{ pc: 0, pos: start, regs: new Array<number>(prog.registers).fill(-1) }];
  while (stack.length > 0) {
    let { pc, pos, regs } = stack.pop() as Thread;
    for (;;) {
      counter.charge(1);
      const insn = prog.insns[pc];
      let ok = true;
      switch (insn.op) {
        case 'char':
          ok = pos < text.length && insn.test(text.charCodeAt(pos));
          pos++;
          pc++;
          break;
        case 'split':
          stack.push({ pc: insn.second, pos, regs });
          pc = insn.first;
          break;
        case 'jmp':
          pc = insn.to;
          break;
        case 'edge':
          ok = edge(insn.kind, text, pos);
          pc++;
          break;
        case 'look': {
          const at = insn.behind ? pos - insn.length : pos;
          const found = at >= 0 && run(insn.prog, text, at, counter, insn.behind ? pos : null) >= 0;
          ok = found !== insn.negate;
          pc++;
          break;
        }
        case 'mark':
          regs = regs.map((r, i) => (i === insn.reg ? pos : r));
          pc++;
          break;
        case 'progress':
          ok = regs[insn.reg] !== pos;
          pc++;
          break;
        case 'match':
          if (end === null || pos === end) return pos;
          ok = false;
      }
      if (!ok) break;
    }
  }
  return -1;
}

function edge(kind: 'start' | 'end' | 'word' | 'nonword', text: string, pos: number): boolean {
  if (kind === 'start') return pos === 0;
  if (kind === 'end') return pos === text.length;
  const boundary = (pos > 0 && isWord(text.charCodeAt(pos - 1))) !== (pos < text.length && isWord(text.charCodeAt(pos)));
  return kind === 'word' ? boundary : !boundary;
}

/**
 * Routes every RegExp exec (test, match, matchAll, replace and split call it) through the counter
 * while `body` runs: the counted search runs first and throws once over budget, then the engine's own
 * exec gives the result. Returns the steps spent.
 */
export function countRegExpSteps(budget: number, body: () => void): number {
  const counter = new StepCounter(budget);
  const original = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, text: string): RegExpExecArray | null {
    const from = this.global || this.sticky ? this.lastIndex : 0;
    if (from <= text.length) countedSearch(this, String(text), from, counter);
    return original.call(this, text);
  };
  try {
    body();
  } finally {
    RegExp.prototype.exec = original;
  }
  return counter.steps;
}
