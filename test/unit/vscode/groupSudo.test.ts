// A group fix's sudo password: typed once, checked on one host before the others get it, sent
// nowhere once sudo refused it; remembered passwords keyed by the whole route. Runs the real core
// (runPlan) and the real group loop (applyToGroup) against fake hosts whose sudo takes one password;
// test/ssh/groupFix.test.ts does the same against real sudo in the lab.
import * as assert from 'node:assert/strict';
import { FixPlan, FixSession, RemoteShell } from '../../../src/core/fixes';
import { SudoPasswordGate } from '../../../src/vscode/fixes/sudoGate';
import { AskedPassword, runWithSudo, SecretStore, SudoDeps } from '../../../src/vscode/fixes/sudoPassword';
import { forgetAllSudoPasswords, forgetHostPasswords, sudoSecretKey, SudoRoute } from '../../../src/vscode/fixes/sudoSecrets';
import { applyToGroup } from '../../../src/vscode/fleet/groupApply';

const RIGHT = 'right-pw';
const MARKER = 'gdr-doctor-sudo-test';

function plan(host: string): FixPlan {
  return {
    fixId: 'load-peermem',
    host,
    user: 'pwuser',
    status: 'ready',
    summary: 'load it',
    module: 'nvidia_peermem',
    privilege: 'sudo-password',
    steps: [{ kind: 'load', title: 'Load nvidia_peermem', command: `sudo -S -p '${MARKER}' modprobe nvidia_peermem`, timeoutMs: 1000 }],
    fileChange: null,
    notes: [],
    findings: [],
    dmabufAvailable: false,
  };
}

/** What a fake host's `sudo -S -p MARKER …` answers to the password on its stdin. */
type FakeSudo = (host: string, stdin: string | undefined) => { exitCode: number | null; stderr: string; timedOut?: boolean };

/** Real sudo -S: prints its prompt (the marker) on stderr, reads a line; runs the command on RIGHT, else refuses. */
const realSudo: FakeSudo = (_host, stdin) =>
  stdin === `${RIGHT}\n`
    ? { exitCode: 0, stderr: MARKER }
    : { exitCode: 1, stderr: `${MARKER}Sorry, try again.\n${MARKER}sudo: 1 incorrect password attempt\n` };

/** Hosts running `sudo`; every password sent is recorded with its host, in order, and when sudo ends. */
function fleet(names: string[], sudo: FakeSudo = realSudo) {
  const sent: [string, string | undefined][] = [];
  const events: string[] = [];
  const session = (host: string): FixSession => {
    const shell: RemoteShell = {
      run: async (_command, { stdin }) => {
        sent.push([host, stdin?.trimEnd()]);
        events.push(`sent ${host}`);
        await new Promise((r) => setTimeout(r, 5)); // sudo takes a moment: the other hosts are asking meanwhile
        events.push(`answered ${host}`);
        const r = sudo(host, stdin);
        return {
          exitCode: r.exitCode,
          stdout: Buffer.from(''),
          stderr: Buffer.from(r.stderr),
          connectionLost: false,
          timedOut: r.timedOut === true,
        };
      },
    };
    return { host, user: 'pwuser', shell, probe: () => Promise.reject(new Error('no probe here')) };
  };
  const ready = names.map((label) => ({ host: { label }, plan: plan(label) }));
  return { sent, events, ready, session };
}

/** A route to `host` (port 22, nothing in between unless `extra` says so), as runWithSudo's default makes it. */
function route(host: string, extra: Partial<SudoRoute> = {}): SudoRoute {
  return { hostId: host, user: 'pwuser', hostname: host, port: 22, proxyJump: null, proxyCommand: null, ...extra };
}

function store(initial: Record<string, string> = {}): SecretStore & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return { data, get: async (k) => data.get(k), store: async (k, v) => void data.set(k, v), delete: async (k) => void data.delete(k) };
}

/** One password box for the group, as groupFix.ts shares it. */
function sharedBox(answer: AskedPassword | null) {
  const box = { asked: 0, ask: undefined as unknown as SudoDeps['ask'] };
  let once: Promise<AskedPassword | null> | undefined;
  box.ask = () => (once ??= (box.asked++, Promise.resolve(answer)));
  return box;
}

async function applyGroup(names: string[], answer: AskedPassword | null, secrets = store(), limit = 32, sudo = realSudo) {
  const f = fleet(names, sudo);
  const box = sharedBox(answer);
  const results = await applyToGroup(f.ready, {
    limit,
    sudo: { secrets, ask: box.ask, note: () => undefined },
    apply: (host, p, sudo) => runWithSudo(p, f.session(host.label), MARKER, sudo),
  });
  return { ...f, box, results };
}

describe('group fix: one sudo password for many hosts', () => {
  it('a wrong password is sent to one host only, and the others run nothing', async () => {
    const g = await applyGroup(['n1', 'n2', 'n3', 'n4', 'n5'], { password: 'typo', remember: false });
    assert.equal(g.box.asked, 1);
    assert.equal(g.sent.length, 1, JSON.stringify(g.sent));
    assert.match(g.results[0].result?.message ?? '', /^sudo did not accept the password/);
    for (const r of g.results.slice(1))
      assert.equal(r.error, `not run: sudo refused the password on ${g.sent[0][0]}, so it was not sent here`);
  });

  it('a right password is tried on one host first, then reaches every host', async () => {
    const g = await applyGroup(['n1', 'n2', 'n3', 'n4'], { password: RIGHT, remember: false });
    assert.equal(g.box.asked, 1);
    assert.deepEqual(g.events.slice(0, 2), [`sent ${g.sent[0][0]}`, `answered ${g.sent[0][0]}`], 'one host alone first');
    assert.equal(g.sent.length, 4);
    assert.ok(g.sent.every(([, pw]) => pw === RIGHT));
    assert.ok(
      g.results.every((r) => r.result?.steps[0]?.ok),
      'sudo ran the step on every host',
    );
  });

  it('the same stale remembered password on every host is tried once, then the typed one', async () => {
    const names = ['n1', 'n2', 'n3'];
    const secrets = store(Object.fromEntries(names.map((n) => [sudoSecretKey(route(n)), 'stale'])));
    const g = await applyGroup(names, { password: RIGHT, remember: false }, secrets);
    assert.equal(g.sent.filter(([, pw]) => pw === 'stale').length, 1, JSON.stringify(g.sent));
    assert.equal(g.sent.filter(([, pw]) => pw === RIGHT).length, 3);
    assert.equal(g.box.asked, 1);
  });

  it('a first try that times out is no verdict: the password goes to one host at a time, and a wrong one stops at the next refusal', async () => {
    let first: string | undefined;
    // The first host's sudo is still checking the password (a slow directory) when the step's time runs out.
    const slowFirst: FakeSudo = (host, stdin) =>
      (first ??= host) === host ? { exitCode: null, stderr: MARKER, timedOut: true } : realSudo(host, stdin);
    const g = await applyGroup(['n1', 'n2', 'n3', 'n4'], { password: 'typo', remember: true }, store(), 32, slowFirst);
    assert.equal(g.box.asked, 1);
    assert.deepEqual(
      g.sent.map(([host]) => host),
      [first, g.sent[1][0]],
      'the timed-out host, then one more host, which refuses it',
    );
    assert.deepEqual(g.events.slice(0, 4), [`sent ${first}`, `answered ${first}`, `sent ${g.sent[1][0]}`, `answered ${g.sent[1][0]}`]);
    assert.equal(g.results.filter((r) => r.error?.startsWith('not run: sudo refused the password')).length, 2);
  });

  it('a step that exited 0 without sudo asking (cached credentials) proves nothing: the password is not remembered', async () => {
    const f = fleet(['gpu01'], () => ({ exitCode: 0, stderr: '' }));
    const secrets = store();
    const r = await runWithSudo(plan('gpu01'), f.session('gpu01'), MARKER, {
      secrets,
      ask: async () => ({ password: 'anything', remember: true }),
      note: () => undefined,
    });
    assert.equal(r.steps[0]?.ok, true, 'the step ran');
    assert.equal(r.passwordAccepted, undefined);
    assert.deepEqual([...secrets.data.keys()], []);
  });

  it('a password sudo asked for and then ran the step with is remembered when asked to', async () => {
    const f = fleet(['gpu01']);
    const secrets = store();
    const ask = async () => ({ password: RIGHT, remember: true });
    const r = await runWithSudo(plan('gpu01'), f.session('gpu01'), MARKER, { secrets, ask, note: () => undefined });
    assert.equal(r.passwordAccepted, true);
    assert.equal(secrets.data.get(sudoSecretKey(route('gpu01'))), RIGHT);
  });

  it('the gate: a verdict-less try (nothing ran) lets the next host try the same password', async () => {
    const gate = new SudoPasswordGate();
    assert.equal(await gate.mayTry('pw'), true);
    const waiting = gate.mayTry('pw');
    gate.settle('pw', 'unknown', 'n1');
    assert.equal(await waiting, true, 'the next host tries it');
    gate.settle('pw', 'refused', 'n2');
    assert.equal(await gate.mayTry('pw'), false);
    assert.equal(gate.refusedOn(), 'n2');
  });
});

describe('remembered sudo passwords: keyed by the whole route, forgotten with the host', () => {
  it('every part of the resolved route is part of the key: user, HostName, Port, ProxyJump chain, ProxyCommand', () => {
    const base = route('gpu01', { hostname: '10.0.0.1' });
    assert.equal(sudoSecretKey(base), 'gdrDoctor.sudo:pwuser@10.0.0.1:22');
    assert.equal(sudoSecretKey({ ...base, proxyJump: 'login1' }), 'gdrDoctor.sudo:pwuser@10.0.0.1:22 via login1');
    const variants = [
      base,
      { ...base, user: 'root' },
      { ...base, hostname: '10.0.0.2' },
      { ...base, port: 2222 },
      { ...base, proxyJump: 'login1' },
      { ...base, proxyJump: 'login2' },
      { ...base, proxyJump: 'bastion,login1' },
      { ...base, proxyCommand: 'ssh -W %h:%p login1' },
      { ...base, proxyCommand: 'ssh -W %h:%p login2' },
    ];
    assert.equal(new Set(variants.map(sudoSecretKey)).size, variants.length);
    assert.match(
      sudoSecretKey({ ...base, proxyCommand: 'nc -X connect -x proxy:3128 %h %p' }),
      /^gdrDoctor\.sudo:pwuser@10\.0\.0\.1:22 through [0-9a-f]{16}$/,
    );
  });

  it('a password remembered for gpu01 behind login1 (or one ProxyCommand) is not sent to gpu01 behind login2 (or another)', async () => {
    for (const [kept, used] of [
      [{ proxyJump: 'login1' }, { proxyJump: 'login2' }],
      [{ proxyCommand: 'ssh -W %h:%p login1' }, { proxyCommand: 'ssh -W %h:%p login2' }],
      [{ hostname: '10.0.0.1' }, { hostname: '10.0.0.2' }],
    ] as Partial<SudoRoute>[][]) {
      const f = fleet(['gpu01']);
      const secrets = store({ [sudoSecretKey(route('gpu01', kept))]: RIGHT });
      const box = sharedBox(null);
      const r = await runWithSudo(
        plan('gpu01'),
        f.session('gpu01'),
        MARKER,
        { secrets, ask: box.ask, note: () => undefined },
        route('gpu01', used),
      );
      assert.deepEqual(f.sent, [], 'nothing sent: asked instead (and cancelled)');
      assert.equal(box.asked, 1);
      assert.equal(r.status, 'refused');
    }
  });

  it('removing a host forgets its passwords (every route it was reached by), and Forget Remembered Passwords forgets all', async () => {
    const secrets = store();
    const remember = async (r: SudoRoute) =>
      runWithSudo(
        plan(r.hostId),
        fleet([r.hostId]).session(r.hostId),
        MARKER,
        { secrets, ask: async () => ({ password: RIGHT, remember: true }), note: () => undefined },
        r,
      );
    await remember(route('gpu01'));
    await remember(route('gpu01', { port: 2222 }));
    await remember(route('gpu02'));
    const keys = (names: string[]) => names.filter((k) => k.startsWith('gdrDoctor.sudo:'));
    assert.equal(keys([...secrets.data.keys()]).length, 3);
    assert.equal(await forgetHostPasswords(secrets, ['gpu01']), 2);
    assert.deepEqual(keys([...secrets.data.keys()]), [sudoSecretKey(route('gpu02'))]);
    assert.equal(await forgetAllSudoPasswords(secrets), 1);
    assert.deepEqual([...secrets.data.keys()], [], 'nothing left, the index included');
  });
});
