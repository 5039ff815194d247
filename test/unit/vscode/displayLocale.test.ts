// When something happened, written as the display language writes dates: Chinese as 2026/12/3 17:42:26,
// English as the runtime's own format (unchanged).
import * as assert from 'node:assert/strict';
import { dateTime, timeOfDay, useDisplayLocale } from '../../../src/vscode/displayLocale';

describe('dates in the display language', () => {
  const at = new Date(2026, 11, 3, 17, 42, 26);
  after(() => useDisplayLocale('en'));

  it('Chinese: year/month/day and a 24-hour clock', () => {
    useDisplayLocale('zh-cn');
    assert.equal(dateTime(at), '2026/12/3 17:42:26');
    assert.equal(timeOfDay(at), '17:42:26');
  });

  it('English: the runtime\'s own format, as before', () => {
    useDisplayLocale('en');
    assert.equal(dateTime(at), at.toLocaleString());
    assert.equal(timeOfDay(at), at.toLocaleTimeString());
  });
});
