// The probe's own cost and its one watchdog: what the script starts besides the commands, how it
// stops a hung command with everything that command started, and the fallbacks for hosts without
// the /proc files it reads (children lists, fdinfo, uptime). Real /bin/sh, real processes.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { PROBE_COMMANDS, ProbeCommandSpec } from '../../../src/core/probe/commands';
import { CommandResult } from '../../../src/core/probe/frames';
import { localRunner } from '../../../src/core/transport/local';
import { ProbeRunner, runProbe } from '../../../src/core/probe/runProbe';
import { FakeHost, H100_STUBS, makeFakeHost } from './fakeHost';

function result(commands: readonly CommandResult[], id: string): CommandResult {
  const r = commands.find((c) => c.id === id);
  assert.ok(r, `no result for ${id}`);
  return r;
}

/** The local runner, with `edit` applied to the script first (a host without some /proc file). */
function runner(host: FakeHost, edit: (script: string) => string = (s) => s): ProbeRunner {
  return (script, request) => localRunner({ env: host.env })(edit(script), request);
}

/** Replaces one line of the script's prelude; throws when it is not there (the test would test nothing). */
function withoutLine(prefix: string, replacement: string): (script: string) => string {
  return (script) => {
    const line = script.split('\n').find((l) => l.startsWith(prefix));
    assert.ok(line, `no line starting ${prefix}`);
    return script.replace(line, replacement);
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

describe('probe watchdog', function () {
  this.timeout(30_000);
  let host: FakeHost;
  beforeEach(() => {
    host = makeFakeHost(H100_STUBS);
  });
  afterEach(() => host.cleanup());

  const hungTree = (): ProbeCommandSpec[] => [
    // The command starts a child and waits: stopping only the command would leave the child running.
    { id: 'tree', command: 'echo before; sleep 60 & echo $! > "$GDR_TEST_LOG/child.pid"; wait', timeoutS: 1 },
    { id: 'quick', command: 'echo quick', timeoutS: 5 },
  ];

  for (const [label, edit] of [
    ["from the kernel's children lists", undefined],
    ['by a scan of /proc where there are no children lists', withoutLine('CH=', 'CH=')],
  ] as const) {
    it(`stops a hung command and what it started at its limit, found ${label}`, async () => {
      const report = await runProbe(runner(host, edit), { host: 'localhost', commands: hungTree(), deadlineMs: 20_000 });
      assert.strictEqual(report.finished, true);
      const tree = result(report.commands, 'tree');
      assert.deepStrictEqual([tree.timedOut, tree.exitCode, tree.stdout], [true, 124, 'before\n']);
      assert.deepStrictEqual([result(report.commands, 'quick').stdout, result(report.commands, 'quick').timedOut], ['quick\n', false]);
      const child = Number(fs.readFileSync(path.join(host.log, 'child.pid'), 'utf8'));
      assert.ok(await gone(child), `the hung command's child (pid ${child}) still runs`);
    });
  }

  it('kills a command that ignores TERM 2 s after its limit, as timeout -k 2 does (exit 137)', async () => {
    const report = await runProbe(runner(host), {
      host: 'localhost',
      commands: [
        { id: 'stubborn', command: 'trap \'\' TERM; echo $$ > "$GDR_TEST_LOG/stubborn.pid"; while :; do sleep 1; done', timeoutS: 1 },
      ],
      deadlineMs: 20_000,
    });
    const stubborn = result(report.commands, 'stubborn');
    assert.deepStrictEqual([stubborn.timedOut, stubborn.exitCode, stubborn.state], [true, 137, 'complete']);
    assert.ok((stubborn.durationMs ?? 0) >= 3000, `stopped after ${stubborn.durationMs} ms`);
    assert.ok(await gone(Number(fs.readFileSync(path.join(host.log, 'stubborn.pid'), 'utf8'))));
  });
});

describe('probe cost on the host', () => {
  let host: FakeHost;
  let calls: string;
  const TOOLS = ['cat', 'head', 'wc', 'date', 'timeout', 'sleep', 'mktemp', 'mkfifo', 'rm', 'tr', 'od'];
  beforeEach(() => {
    host = makeFakeHost({});
    calls = path.join(host.log, 'tools.log');
    // Each tool the script might start logs its name, then runs the real one.
    for (const tool of TOOLS) {
      const real = execFileSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
      fs.writeFileSync(path.join(host.bin, tool), `#!/bin/sh\necho ${tool} >> '${calls}'\nexec ${real} "$@"\n`, { mode: 0o755 });
    }
  });
  afterEach(() => host.cleanup());

  it('starts no process per command beyond the command, and one cat for sections that end together', async () => {
    const commands = Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, command: `echo out${i}`, timeoutS: 10 }));
    const report = await runProbe(localRunner({ env: host.env }), { host: 'localhost', commands });
    assert.strictEqual(report.finished, true);
    assert.deepStrictEqual(
      report.commands.map((c) => c.stdout),
      commands.map((_, i) => `out${i}\n`),
    );
    const started = fs.readFileSync(calls, 'utf8').trim().split('\n');
    const count = (tool: string) => started.filter((t) => t === tool).length;
    // mktemp and mkfifo to set up, rm to clean up, the watchdog's sleep, one cat for the batch; on a
    // machine so busy that the probe outlasts the 1 s flush tick, a second sleep and a second batch.
    assert.deepStrictEqual([count('mktemp'), count('mkfifo'), count('rm')], [1, 1, 1], started.join(' '));
    assert.ok(count('sleep') >= 1 && count('sleep') <= 2 && count('cat') >= 1 && count('cat') <= 2, started.join(' '));
    assert.deepStrictEqual(
      started.filter((t) => !['mktemp', 'mkfifo', 'rm', 'sleep', 'cat'].includes(t)),
      [],
      'no timeout, date, wc or head',
    );
  });
});

describe('probe on hosts without the /proc files it reads', () => {
  let host: FakeHost;
  beforeEach(() => {
    host = makeFakeHost(H100_STUBS);
  });
  afterEach(() => host.cleanup());

  it('gives the same outputs with stream sizes from wc and no clock', async () => {
    const normal = await runProbe(runner(host), { host: 'localhost', commands: PROBE_COMMANDS });
    const fallback = await runProbe(
      runner(host, (s) => withoutLine('UP=', 'UP=')(withoutLine('FD=', 'FD=')(s))),
      { host: 'localhost', commands: PROBE_COMMANDS },
    );
    assert.strictEqual(fallback.finished, true);
    const outputs = (r: typeof normal) => r.commands.map((c) => [c.id, c.state, c.exitCode, c.stdout, c.stderr]);
    assert.deepStrictEqual(outputs(fallback), outputs(normal));
    assert.ok(normal.commands.every((c) => c.durationMs !== null));
    assert.ok(fallback.commands.every((c) => c.durationMs === null));
  });
});
