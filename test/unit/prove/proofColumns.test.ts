// The proof table lines up in any language: its headings are translated, and a Chinese character
// takes two terminal columns, so padding by string length would push every heading off its column.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { displayWidth, padEndColumns, padStartColumns } from '../../../src/core/columns';
import { useBundle } from '../../../src/core/l10n';
import { formatProof } from '../../../src/core/prove/text';
import { REPO_ROOT } from '../../support/paths';
import { sampleProof } from './sampleProof';

/** The column (0-based, in terminal columns) where `needle` ends on `line`. */
const endColumn = (line: string, needle: RegExp): number => {
  const m = needle.exec(line);
  assert.ok(m, `${needle} not in ${JSON.stringify(line)}`);
  return displayWidth(line.slice(0, m.index + m[0].length));
};

function columnsOf(text: string): { heading: number; row: number; ratioHeading: number; ratioRow: number } {
  const lines = text.split('\n');
  const heading = lines.find((l) => l.includes('Gb/s'))!;
  const row = lines.find((l) => /\bhost\s+\d/.test(l))!;
  return {
    heading: endColumn(heading, /Gb\/s/),
    row: endColumn(row, /\bhost\s+[\d.]+/),
    ratioHeading: displayWidth(heading.slice(0, heading.search(/\s{2}\S+$/))),
    ratioRow: endColumn(row, /\d+ %|\d+%/),
  };
}

describe('proof table columns', () => {
  it('counts a CJK character as two columns, a combining mark as none', () => {
    assert.equal(displayWidth('GPU0'), 4);
    assert.equal(displayWidth('模式'), 4);
    assert.equal(displayWidth('e\u0301'), 1);
    assert.equal(padEndColumns('模式', 9), '模式     ');
    assert.equal(padStartColumns('比例', 7), '   比例');
  });

  it('puts each number under its heading, in English and in Chinese', async () => {
    const proof = await sampleProof('works');
    const english = columnsOf(formatProof(proof));
    assert.equal(english.row, english.heading);
    const bundle = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    useBundle(bundle);
    try {
      const text = formatProof(proof);
      assert.match(text, /模式/, 'the headings are in Chinese');
      const chinese = columnsOf(text);
      assert.equal(chinese.row, chinese.heading);
      assert.equal(chinese.ratioRow, chinese.ratioHeading);
    } finally {
      l10n.config({ contents: {} });
    }
  });
});
