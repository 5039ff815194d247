// Polls (bounded, not timed) until a condition on a real process or file holds; the limit only
// turns a hang into a clear failure naming what never happened.
import * as assert from 'node:assert/strict';

export async function until(what: string, check: () => boolean, limitMs = 20_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
