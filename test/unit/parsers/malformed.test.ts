// Input no parser should accept, fed to every kind: each must answer with a located ParseError,
// never a throw, never a hang (mocha's timeout is the guard), never a half-read result.
import * as assert from 'node:assert/strict';
import { PARSE_KINDS } from '../../../src/cli/parseKinds';

const GARBAGE = 'Lorem ipsum dolor sit amet\n%%%% ?? ::: ===\n}{][\n';
const BINARY = `\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00${'\x00\xff\xfe'.repeat(50)}`;
const HUGE = `${'x'.repeat(99)}\n`.repeat(100_000); // 10 MB of text

describe('every parser on malformed input', () => {
  for (const { kind, parse } of PARSE_KINDS) {
    describe(kind, () => {
      const cases: [string, string][] = [
        ['garbage text', GARBAGE],
        ['binary bytes', BINARY],
        ['10 MB of text', HUGE],
        ['a shell error instead of output', 'bash: line 1: nvidia-smi: command not found\n'],
      ];
      for (const [name, text] of cases) {
        it(`rejects ${name} with a located error`, () => {
          const r = parse(text);
          assert.equal(r.ok, false, `${kind} accepted ${name}`);
          assert.ok(!r.ok && Number.isInteger(r.error.line) && r.error.line >= 1, 'line number');
          assert.ok(!r.ok && r.error.message.length > 10, 'a message a user can act on');
        });
      }
    });
  }
});
