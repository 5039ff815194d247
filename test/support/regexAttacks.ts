// Adversarial lines for a regular expression, generated from its own structure: for each quantifier,
// the text that leads up to it, then a long run of characters it (and what follows it) accepts, then
// an ending that makes the rest fail, so a backtracking engine tries every way to split the run. The
// candidates are ranked by the steps they cost on short lines (regexSteps.ts); the worst is the one to
// grow to 64 KiB.
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { countedSearch, StepCounter } from './regexSteps';

/** Characters tried as the run: what log lines hold, and what the patterns' classes name. */
const ALPHABET = [' ', 'a', '1', 'f', '.', ':', '/', '-', '_', ',', '[', ']', '(', ')', "'", '=', '+', '<', '>', '\t', 'N', 'x', '0'];
const ENDINGS = ['', ' \u0001', '\u0001 \u0001', ')', ']', "'"];

export interface Attack {
  readonly prefix: string;
  readonly pump: string;
  readonly ending: string;
}

export function attackText(a: Attack, length: number): string {
  const repeat = Math.max(1, Math.floor((length - a.prefix.length - a.ending.length) / a.pump.length));
  return a.prefix + a.pump.repeat(repeat) + a.ending;
}

/** Every (prefix, pump, ending) the pattern's quantifiers suggest. */
export function attacksOf(re: RegExp): Attack[] {
  const pattern = new RegExpParser({ ecmaVersion: 2024 }).parsePattern(re.source, 0, re.source.length, { unicode: re.unicode });
  const found: Attack[] = [];
  const seen = new Set<string>();
  const add = (prefix: string, pump: string) => {
    for (const ending of ENDINGS) {
      const key = `${prefix}\u0000${pump}\u0000${ending}`;
      if (pump !== '' && !seen.has(key)) {
        seen.add(key);
        found.push({ prefix, pump, ending });
      }
    }
  };
  const walk = (elements: readonly AST.Element[], before: string): void => {
    let prefix = before;
    for (const e of elements) {
      if (e.type === 'Quantifier') {
        for (const c of ALPHABET) if (accepts(e.element, c)) add(prefix, c);
        add(prefix, sample(e.element));
        add(prefix, `${sample(e.element)} `);
        walk([e.element], prefix);
      } else if (e.type === 'Group' || e.type === 'CapturingGroup') {
        for (const alt of e.alternatives) walk(alt.elements, prefix);
      }
      prefix += sample(e);
    }
  };
  for (const alt of pattern.alternatives) walk(alt.elements, '');
  if (found.length === 0) for (const c of ALPHABET) add('', c);
  return found;
}

/** The attack that costs the most steps on a short line, and what it cost there. */
export function worstAttack(re: RegExp, length = 400): { attack: Attack; steps: number } {
  let worst: { attack: Attack; steps: number } | null = null;
  for (const attack of attacksOf(re)) {
    const counter = new StepCounter();
    countedSearch(re, attackText(attack, length), 0, counter);
    if (!worst || counter.steps > worst.steps) worst = { attack, steps: counter.steps };
  }
  if (!worst) throw new Error(`no attack for ${re}`);
  return worst;
}

/** A shortest text the element matches (the first alternative, the fewest repetitions). */
function sample(e: AST.Node): string {
  switch (e.type) {
    case 'Character':
      return String.fromCodePoint(e.value);
    case 'CharacterSet':
    case 'CharacterClass':
      return ALPHABET.find((c) => accepts(e, c)) ?? '\u0002';
    case 'Group':
    case 'CapturingGroup':
      return e.alternatives[0].elements.map(sample).join('');
    case 'Quantifier':
      return sample(e.element).repeat(e.min);
    default:
      return '';
  }
}

/** Whether a text can start with `c` where the element stands. */
function accepts(e: AST.Node, c: string): boolean {
  const code = c.charCodeAt(0);
  switch (e.type) {
    case 'Character':
      return e.value === code;
    case 'CharacterClassRange':
      return code >= e.min.value && code <= e.max.value;
    case 'CharacterSet': {
      if (e.kind === 'any') return c !== '\n' && c !== '\r';
      if (e.kind === 'property') return false;
      const hit = e.kind === 'digit' ? /\d/.test(c) : e.kind === 'word' ? /\w/.test(c) : /\s/.test(c);
      return hit !== e.negate;
    }
    case 'CharacterClass':
      return e.elements.some((x) => accepts(x, c)) !== e.negate;
    case 'Group':
    case 'CapturingGroup':
      return e.alternatives.some((a) => a.elements.length > 0 && accepts(a.elements[0], c));
    case 'Quantifier':
      return accepts(e.element, c);
    default:
      return false;
  }
}
