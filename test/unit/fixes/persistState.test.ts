// READ_STATE_SCRIPT's output (scripts.ts prints it; scripts.test.ts runs it for real): read byte for
// byte, and a cut-off or foreign output is a located error, never a half-read state.
import * as assert from 'node:assert/strict';
import { parsePersistState } from '../../../src/core/fixes';

const b = (s: string) => Buffer.from(s);

describe('persist state reader', () => {
  it('reads states and contents, counting bytes (not characters)', () => {
    const r = parsePersistState(
      b('modules-load.d: absent\nfile /etc/a absent\nfile /etc/modules regular 9\nlp\népée\nfile /etc/c other\nend\n'),
    );
    assert.ok(r.ok);
    assert.equal(r.value.modulesLoadDir, 'absent');
    assert.deepEqual(r.value.files['/etc/modules'], { kind: 'regular', content: 'lp\népée' });
    assert.deepEqual(r.value.files['/etc/c'], { kind: 'other' });
  });

  it('fails, with the line, on empty, foreign or cut-off output', () => {
    const cases: [string, number, RegExp][] = [
      ['', 1, /expected "modules-load\.d: directory\|absent\|other"/],
      ['Module                  Size  Used by\n', 1, /found "Module/],
      ['modules-load.d: directory\nfile /etc/modules regular 10\nlp\n', 2, /should have 10 bytes/],
      ['modules-load.d: directory\nfile /etc/a absent\n', 3, /the end of the output \(cut off\?\)/],
      ['modules-load.d: directory\nfile /etc/m regular 2\nlp\n\nend\n', 4, /expected "file <path> <state>" or "end"/],
    ];
    for (const [text, line, message] of cases) {
      const r = parsePersistState(b(text));
      assert.equal(r.ok, false, text);
      if (!r.ok) {
        assert.equal(r.error.line, line, text);
        assert.match(r.error.message, message);
      }
    }
  });
});
