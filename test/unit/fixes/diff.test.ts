// The diff a persist plan shows: what diff -u prints for an appended line.
import * as assert from 'node:assert/strict';
import { unifiedDiff } from '../../../src/core/fixes/diff';

describe('unified diff of an appended line', () => {
  it('new file', () => {
    assert.equal(unifiedDiff('/etc/x.conf', null, 'a\nb\n'), '--- /dev/null\n+++ /etc/x.conf\n@@ -0,0 +1,2 @@\n+a\n+b\n');
  });

  it('empty file, one-line file, and three lines of context at most', () => {
    assert.equal(unifiedDiff('/f', '', 'x\n'), '--- /f\n+++ /f\n@@ -0,0 +1 @@\n+x\n');
    assert.equal(unifiedDiff('/f', 'a\n', 'a\nx\n'), '--- /f\n+++ /f\n@@ -1 +1,2 @@\n a\n+x\n');
    assert.equal(unifiedDiff('/f', '1\n2\n3\n4\n5\n', '1\n2\n3\n4\n5\nx\n'), '--- /f\n+++ /f\n@@ -3,3 +3,4 @@\n 3\n 4\n 5\n+x\n');
  });

  it('a last line without newline is replaced, as diff -u shows it', () => {
    assert.equal(unifiedDiff('/f', 'a\nb', 'a\nb\nx\n'), '--- /f\n+++ /f\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+x\n');
  });

  it('no change: no diff', () => {
    assert.equal(unifiedDiff('/f', 'a\n', 'a\n'), '');
  });
});
