// sudo's password for a fix from the extension: remembered per user and host, a rejected one
// forgotten and asked for once, a typed one kept only when asked for and accepted. Runs the real
// core (runPlan) against a fake host whose sudo takes one password.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { useBundle } from '../../../src/core/l10n';
import { REPO_ROOT } from '../../support/paths';
import { Commands, Views } from '../../../src/constants';
import { englishManifest } from '../../support/manifest';
import { FixPlan, FixSession, RemoteShell } from '../../../src/core/fixes';
import { AskedPassword, runWithSudo, SecretStore, sudoSecretKey } from '../../../src/vscode/fixes/sudoPassword';
import { findingContextValue, fixMenuWhen } from '../../../src/vscode/fixes/contextValue';

const RIGHT = 'right-pw';
const MARKER = 'gdr-doctor-sudo-test';

function plan(privilege: FixPlan['privilege']): FixPlan {
  return {
    fixId: 'load-peermem',
    host: 'gpu-a',
    user: 'pwuser',
    status: 'ready',
    summary: 'load it',
    module: 'nvidia_peermem',
    privilege,
    steps: [{ kind: 'load', title: 'Load nvidia_peermem', command: `sudo -S -p '${MARKER}' modprobe nvidia_peermem`, timeoutMs: 1000 }],
    fileChange: null,
    notes: [],
    findings: [],
    dmabufAvailable: false,
  };
}

/** A host whose sudo accepts only RIGHT, printing its prompt (the marker) as sudo -S does; records each stdin it got. */
function session(): FixSession & { stdins: (string | undefined)[] } {
  const stdins: (string | undefined)[] = [];
  const shell: RemoteShell = {
    run: async (_command, { stdin }) => {
      stdins.push(stdin);
      const ok = stdin === `${RIGHT}\n`;
      return {
        exitCode: ok ? 0 : 1,
        stdout: Buffer.from(''),
        stderr: Buffer.from(ok ? MARKER : `${MARKER}Sorry, try again.\n${MARKER}sudo: 1 incorrect password attempt\n`),
        connectionLost: false,
        timedOut: false,
      };
    },
  };
  return { host: 'gpu-a', user: 'pwuser', shell, probe: () => Promise.reject(new Error('no probe here')), stdins };
}

function store(initial: Record<string, string> = {}): SecretStore & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return { data, get: async (k) => data.get(k), store: async (k, v) => void data.set(k, v), delete: async (k) => void data.delete(k) };
}

function asker(answers: (AskedPassword | null)[]) {
  const calls: boolean[] = [];
  return { calls, ask: async (retry: boolean) => (calls.push(retry), answers.shift() ?? null) };
}

const KEY = sudoSecretKey({ user: 'pwuser', hostname: 'gpu-a', port: 22, proxyJump: null, proxyCommand: null });
const notes: string[] = [];
const note = (m: string) => void notes.push(m);

describe('quick fixes in VS Code: sudo password', () => {
  beforeEach(() => notes.splice(0));

  it('uses a remembered password without asking', async () => {
    const s = session();
    const secrets = store({ [KEY]: RIGHT });
    const a = asker([]);
    const r = await runWithSudo(plan('sudo-password'), s, MARKER, { secrets, ask: a.ask, note });
    assert.deepEqual(s.stdins, [`${RIGHT}\n`]);
    assert.deepEqual(a.calls, []);
    assert.equal(r.steps.length, 1);
    assert.ok(r.steps[0].ok);
    assert.equal(secrets.data.get(KEY), RIGHT);
  });

  it('forgets a remembered password sudo rejects, asks once, and runs again', async () => {
    const s = session();
    const secrets = store({ [KEY]: 'stale' });
    const a = asker([{ password: RIGHT, remember: false }]);
    const r = await runWithSudo(plan('sudo-password'), s, MARKER, { secrets, ask: a.ask, note });
    assert.deepEqual(s.stdins, ['stale\n', `${RIGHT}\n`]);
    assert.deepEqual(a.calls, [true], 'asked once, told the remembered one was rejected');
    assert.ok(r.steps[0].ok);
    assert.equal(secrets.data.has(KEY), false, 'not remembered again without the tick');
    assert.ok(
      notes.every((n) => !n.includes(RIGHT) && !n.includes('stale')),
      'no password in the log',
    );
  });

  it('remembers a typed password only when ticked and accepted', async () => {
    const secrets = store();
    await runWithSudo(plan('sudo-password'), session(), MARKER, { secrets, ask: asker([{ password: 'wrong', remember: true }]).ask, note });
    assert.equal(secrets.data.has(KEY), false, 'a rejected password is not kept');
    await runWithSudo(plan('sudo-password'), session(), MARKER, { secrets, ask: asker([{ password: RIGHT, remember: false }]).ask, note });
    assert.equal(secrets.data.has(KEY), false, 'not ticked: not kept');
    await runWithSudo(plan('sudo-password'), session(), MARKER, { secrets, ask: asker([{ password: RIGHT, remember: true }]).ask, note });
    assert.equal(secrets.data.get(KEY), RIGHT);
  });

  it("in Chinese too: a rejected password is told by the core's flag, not its (translated) words, and is not kept", async () => {
    const bundle = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'l10n/bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    useBundle(bundle);
    try {
      const secrets = store();
      const r = await runWithSudo(plan('sudo-password'), session(), MARKER, {
        secrets,
        ask: asker([{ password: 'wrong', remember: true }]).ask,
        note,
      });
      assert.doesNotMatch(r.message, /^sudo did not accept/, 'the message is in Chinese');
      assert.equal(r.passwordRejected, true);
      assert.equal(secrets.data.has(KEY), false, 'a rejected password is not kept');
    } finally {
      l10n.config({ contents: {} });
    }
  });

  it('a wrong typed password fails as rejected and is not asked again', async () => {
    const s = session();
    const a = asker([
      { password: 'wrong', remember: false },
      { password: RIGHT, remember: false },
    ]);
    const r = await runWithSudo(plan('sudo-password'), s, MARKER, { secrets: store(), ask: a.ask, note });
    assert.equal(r.status, 'failed');
    assert.match(r.message, /^sudo did not accept the password of pwuser on gpu-a/);
    assert.equal(a.calls.length, 1);
  });

  it('runs nothing when the question is cancelled', async () => {
    const s = session();
    const r = await runWithSudo(plan('sudo-password'), s, MARKER, { secrets: store(), ask: asker([null]).ask, note });
    assert.equal(r.status, 'refused');
    assert.deepEqual(s.stdins, []);
  });

  it('never touches the secret store when sudo needs no password', async () => {
    const s = session();
    const secrets = store({ [KEY]: RIGHT });
    const a = asker([]);
    await runWithSudo(plan('sudo'), s, MARKER, {
      secrets: { ...secrets, get: async () => assert.fail('read a secret') },
      ask: a.ask,
      note,
    });
    assert.deepEqual(s.stdins, [undefined]);
    assert.deepEqual(a.calls, []);
  });
});

describe('quick fixes in VS Code: finding context values', () => {
  it('names each offered fix, and the menu clause matches exactly that fix', () => {
    assert.equal(findingContextValue([]), 'gdrDoctor.finding');
    const both = findingContextValue(['load-peermem', 'persist-peermem', 'not-a-fix']);
    assert.equal(both, 'gdrDoctor.finding;fix=load-peermem;fix=persist-peermem');
    const clause = (id: 'load-peermem' | 'persist-peermem') => {
      const when = fixMenuWhen('v', id);
      return new RegExp(when.slice(when.indexOf('/') + 1, when.lastIndexOf('/')));
    };
    assert.ok(clause('load-peermem').test(findingContextValue(['load-peermem'])));
    assert.ok(!clause('persist-peermem').test(findingContextValue(['load-peermem'])));
    assert.ok(clause('persist-peermem').test(both));
  });
});

describe('quick fixes in VS Code: package.json', () => {
  it('puts one inline action per fix id on findings, with the clause fixMenuWhen builds', () => {
    const manifest = englishManifest();
    const items = manifest.contributes.menus['view/item/context'] as { command: string; when: string; group: string }[];
    for (const [id, command] of [
      ['load-peermem', Commands.fixLoadPeermem],
      ['persist-peermem', Commands.fixPersistPeermem],
    ] as const) {
      assert.ok(
        items.some((m) => m.command === command && m.group.startsWith('inline') && m.when === fixMenuWhen(Views.hosts, id)),
        command,
      );
    }
  });
});
