// Cancelling "This machine": the local runner's abort signal must stop the probe script and the
// commands it started, not only stop waiting for them. Real /bin/sh, real `timeout` and `sleep`;
// what is still running is read from /proc.
import * as assert from 'assert';
import * as fs from 'fs';
import { localRunner } from '../../../src/core/transport/local';
import { runProbe } from '../../../src/core/probe/runProbe';

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  argv: string[];
}

/** Every process /proc shows now (those that vanish while being read are skipped). */
function processes(): ProcStat[] {
  const all: ProcStat[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // comm (2nd field) may hold spaces and parentheses: the fields we need follow the last ')'.
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const argv = fs
        .readFileSync(`/proc/${name}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      all.push({ pid: Number(name), state, ppid: Number(ppid), pgrp: Number(pgrp), argv });
    } catch {
      // Exited meanwhile.
    }
  }
  return all;
}

/** Live members (zombies have already exited) of the given process groups. */
function liveIn(groups: ReadonlySet<number>): ProcStat[] {
  return processes().filter((p) => groups.has(p.pgrp) && p.state !== 'Z');
}

async function poll<T>(what: string, probe: () => T | undefined, limitMs: number): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) assert.fail(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('localRunner with an abort signal', () => {
  it("stops the script's process group and the command it runs, then returns at once", async function () {
    this.timeout(20_000);
    // A duration no other process on this machine uses, so /proc finds exactly our sleep.
    const marker = String(3000 + (process.pid % 900) + 0.25);
    const abort = new AbortController();
    const run = runProbe(localRunner({ signal: abort.signal }), {
      host: 'localhost',
      commands: [{ id: 'hangs', command: `sleep ${marker}`, timeoutS: 600 }],
      deadlineMs: 600_000,
    });
    const sleeper = await poll(
      "the probe's sleep runs",
      () => processes().find((p) => p.argv[0] === 'sleep' && p.argv[1] === marker),
      5_000,
    );
    // Walk up from the sleep to our own child, the script's shell: the leader of the script's group.
    const byPid = new Map(processes().map((p) => [p.pid, p]));
    const chain: ProcStat[] = [];
    for (let p: ProcStat | undefined = sleeper; p && p.pid !== process.pid; p = byPid.get(p.ppid)) chain.push(p);
    const script = chain[chain.length - 1];
    assert.strictEqual(script.ppid, process.pid, `the sleep does not descend from this process: ${JSON.stringify(chain)}`);
    assert.deepStrictEqual(script.argv.slice(-1), ['-s']);
    assert.strictEqual(script.pgrp, script.pid, 'the script leads a process group of its own');
    // GNU timeout moves itself and the command into another group; both groups must go.
    const groups = new Set(chain.map((p) => p.pgrp));
    assert.ok(liveIn(groups).length >= 2, 'the groups are running before the abort');

    abort.abort();
    // No clock: the sleep and the limits run for many minutes, so a run that did not return on the abort
    // hits this test's mocha timeout; and the report says the script did not run to its end.
    const report = await run;
    assert.strictEqual(report.timedOut, false);
    assert.strictEqual(report.finished, false);
    await poll('nothing of the probe runs any more', () => (liveIn(groups).length === 0 ? true : undefined), 5_000).catch(() =>
      assert.fail(`still running after the abort: ${JSON.stringify(liveIn(groups))}`),
    );
  });

  it('does not start anything when the signal is already aborted', async () => {
    const abort = new AbortController();
    abort.abort();
    const report = await runProbe(localRunner({ signal: abort.signal }), {
      host: 'localhost',
      commands: [{ id: 'echo', command: 'echo started', timeoutS: 5 }],
      deadlineMs: 10_000,
    });
    assert.strictEqual(report.finished, false);
    assert.notStrictEqual(report.commands[0].stdout, 'started\n');
  });
});
