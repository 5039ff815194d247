// Polls (bounded, not timed) until a condition on a real process or file holds; the limit only
// turns a hang into a clear failure naming what never happened. `what` may be a function: the message
// is then made at the failure, so it can show the state that kept the condition from holding.
import * as assert from 'node:assert/strict';

export async function until(what: string | (() => string), check: () => boolean, limitMs = 20_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`gave up waiting: ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
