// The NCCL log reader stays linear on hostile lines (issue 23 item 1). Steps are counted, not timed
// (test/support/regexSteps.ts runs each pattern on a backtracking machine and counts its steps): every
// regular expression in the reader's sources, and every entry point a log line reaches (the reader,
// the header finder, each message classifier, the hover, the language detection), is fed 64 KiB lines
// generated from the pattern's own structure, and must finish within LINEAR_STEPS_PER_CHAR steps per
// character: generous for linear code (the reader's worst pattern costs a few dozen per character),
// while a quadratic pattern needs thousands per character at 64 KiB (a 64 KiB `Using network a<spaces>b`
// cost 2 billion steps, 7 s, before).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { ncclLogNearTop } from '../../../src/core/ncclLog/detect';
import { ncclLogHoverAt } from '../../../src/core/ncclLog/hover';
import { readNcclLog } from '../../../src/core/parsers/ncclLog';
import { attackText, worstAttack } from '../../support/regexAttacks';
import { countedSearch, countRegExpSteps, StepCounter } from '../../support/regexSteps';
import { REPO_ROOT } from '../../support/paths';

const LINE = 64 * 1024;
const LINEAR_STEPS_PER_CHAR = 200;
const budget = (chars: number) => LINEAR_STEPS_PER_CHAR * chars + 10_000;

/** The reader's sources: the parsers, the summary and editor texts, the editor's adapters. */
const SOURCES = [
  ...['src/core/parsers', 'src/core/ncclLog', 'src/vscode/ncclLog']
    .flatMap((dir) => fs.readdirSync(path.join(REPO_ROOT, dir)).map((f) => path.join(dir, f)))
    .filter((f) => f.endsWith('.ts') && (!f.startsWith('src/core/parsers') || path.basename(f).startsWith('ncclLog'))),
  'src/vscode/editor/contentLanguage.ts',
];

/** Every regular expression literal of a source file, as it is at run time; `new RegExp` is refused (its pattern is not in the source). */
function regExpsOf(file: string): RegExp[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
  assert.doesNotMatch(text, /new RegExp\(/, `${file}: build patterns as literals, so this test reads them`);
  const found: RegExp[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText();
      const end = literal.lastIndexOf('/');
      found.push(new RegExp(literal.slice(1, end), literal.slice(end + 1)));
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return found;
}

const PATTERNS = SOURCES.flatMap((file) => regExpsOf(file).map((re) => ({ file, re })));
const ATTACKS = PATTERNS.map((p) => ({ ...p, worst: worstAttack(p.re) }));

describe('the NCCL log reader is linear on adversarial 64 KiB lines (steps counted)', () => {
  it('finds the patterns of every parser file', () => {
    for (const file of ['ncclLogPrefix.ts', 'ncclLogMessages.ts', 'ncclLogConnection.ts']) {
      assert.ok(
        PATTERNS.some((p) => p.file.endsWith(file)),
        file,
      );
    }
    assert.ok(PATTERNS.length >= 30, `${PATTERNS.length} patterns`);
  });

  it('counts a quadratic pattern as quadratic: the check can fail', () => {
    const quadratic = /^Using network (.+?)\s*$/;
    const counter = new StepCounter(budget(LINE));
    assert.throws(() => countedSearch(quadratic, attackText(worstAttack(quadratic).attack, LINE), 0, counter), /over \d+ steps/);
  });

  for (const { file, re, worst } of ATTACKS) {
    it(`${path.basename(file)} ${re}`, () => {
      const line = attackText(worst.attack, LINE);
      const counter = new StepCounter(budget(line.length));
      assert.doesNotThrow(() => countedSearch(re, line, 0, counter), `${JSON.stringify(worst.attack)}`);
    });
  }

  /** Lines as the reader meets them: each attack on its own, behind a full header, behind a bare one. */
  const lines = (): string[] =>
    ATTACKS.flatMap(({ worst }) => {
      const body = attackText(worst.attack, LINE - 40);
      return [body, `gpu01:1234:1234 [0] NCCL INFO ${body}`, `NCCL INFO ${body}`, `gpu01:1:1 [0] NCCL WARN ${body}`];
    });
  const headerFloods = [
    'NCCL INFO '.repeat(LINE / 10),
    'a:1:1 [0] NCCL INFO '.repeat(LINE / 20),
    `${'a'.repeat(LINE - 20)}:1:1 [0] NCCL INFO x`,
    `NCCL version 1.1.${'1'.repeat(LINE)} x`,
    `${'a:1:1 [0] '.repeat(LINE / 10)}NCCL INFO x`,
  ];

  it('reads every such line within the linear budget, all patterns together', () => {
    for (const line of [...lines(), ...headerFloods]) {
      assert.doesNotThrow(() => countRegExpSteps(budget(line.length), () => readNcclLog(line)), JSON.stringify(line.slice(0, 80)));
    }
  });

  it('hovers anywhere on such a line within the budget', () => {
    for (const line of [...lines(), ...headerFloods]) {
      for (const at of [0, 40, 2000, line.length - 1]) {
        assert.doesNotThrow(
          () => countRegExpSteps(budget(line.length), () => ncclLogHoverAt(line, at)),
          JSON.stringify([at, line.slice(0, 80)]),
        );
      }
    }
  });

  it('decides the language of a document of such lines within the budget', () => {
    const doc = [...lines(), ...headerFloods];
    const chars = doc.reduce((a, l) => a + l.length, 0);
    assert.doesNotThrow(() => countRegExpSteps(budget(chars), () => ncclLogNearTop(doc)));
  });
});
