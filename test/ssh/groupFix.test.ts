// A fleet group's quick fix with ONE sudo password, against real sudo on simulated hosts: a wrong
// password costs exactly one sudo attempt across the group (read from each host's own sudo log),
// and a right one is checked on one host, then reaches all. The group loop is the extension's own
// (applyToGroup, runWithSudo), over real SSH connections; what ran is read from the hosts' call logs.
import * as assert from 'node:assert/strict';
import { FixPlan, newSudoMarker, prepareFix, sshFixSession } from '../../src/core/fixes';
import { connect, SshConnection } from '../../src/core/ssh/connect';
import { parseDestination } from '../../src/core/ssh/destination';
import { noPrompts } from '../../src/core/ssh/prompts';
import { resolveTarget } from '../../src/core/ssh/resolveTarget';
import { AskedPassword, runWithSudo, SecretStore } from '../../src/vscode/fixes/sudoPassword';
import { applyToGroup } from '../../src/vscode/fleet/groupApply';
import { assertLabCanRun, cleanupStale, Lab, LabUser, startLab } from '../lab/lab';

const RECORDS = '/tmp/gdr-doctor-lab-groupfix.records.json';
const SUDO_PW = 'pwuser-lab-pw';
// pwuser logs in with the lab's key; its sudo asks for its password.
const USERS: LabUser[] = [
  { name: 'pwuser', uid: 1501, sudo: 'password', password: SUDO_PW, keys: ['plain'] },
  { name: 'root', uid: 0, sudo: 'none', keys: ['plain'] },
];
const HOSTS = ['grp-1', 'grp-2', 'grp-3', 'grp-4'];

let lab: Lab;

const refusals = (name: string) =>
  lab
    .host(name)
    .sudoLog()
    .filter((l) => /incorrect password attempt/.test(l));
const modprobes = (name: string) =>
  lab
    .host(name)
    .calls()
    .filter((c) => c.cmd === 'modprobe')
    .map((c) => [c.uid, c.args]);

async function open(name: string): Promise<SshConnection> {
  const target = await resolveTarget(parseDestination(`pwuser@${name}`), lab.sshConfigPath);
  return connect(target, { prompts: noPrompts, resolveHop: async () => assert.fail('no hops') });
}

/** Plans load-peermem on every host, then applies it as a group fix does; `answer` is typed once. */
async function groupFix(
  answer: AskedPassword,
): Promise<{ asked: number; results: Awaited<ReturnType<typeof applyToGroup<{ label: string }>>> }> {
  const conns = new Map<string, SshConnection>();
  try {
    for (const name of HOSTS) conns.set(name, await open(name));
    const marker = newSudoMarker();
    const session = (name: string) => sshFixSession(conns.get(name)!, name);
    const ready: { host: { label: string }; plan: FixPlan }[] = [];
    for (const name of HOSTS) ready.push({ host: { label: name }, plan: await prepareFix(session(name), 'load-peermem', marker) });
    assert.ok(
      ready.every((r) => r.plan.status === 'ready' && r.plan.privilege === 'sudo-password'),
      JSON.stringify(ready.map((r) => r.plan.summary)),
    );
    let asked = 0;
    let once: Promise<AskedPassword> | undefined;
    const secrets: SecretStore = { get: async () => undefined, store: async () => undefined, delete: async () => undefined };
    const results = await applyToGroup(ready, {
      limit: 32,
      sudo: { secrets, ask: () => (once ??= (asked++, Promise.resolve(answer))), note: () => undefined },
      apply: (host, plan, sudo) => runWithSudo(plan, session(host.label), marker, sudo),
    });
    return { asked, results };
  } finally {
    for (const c of conns.values()) c.close();
  }
}

describe('group fix with one sudo password (real sudo on lab hosts)', function () {
  this.timeout(180_000);

  before(async function () {
    this.timeout(180_000);
    assertLabCanRun();
    await cleanupStale(RECORDS);
    lab = await startLab({ hosts: HOSTS.map((name) => ({ name, profile: 'needs-peermem', users: USERS })), recordsPath: RECORDS });
  });

  after(async function () {
    this.timeout(60_000);
    await lab?.stop();
  });

  it('a mistyped password makes exactly one sudo attempt across the group; nothing runs anywhere', async () => {
    const { asked, results } = await groupFix({ password: 'pwuser-lab-pw-typo', remember: false });
    assert.equal(asked, 1);
    assert.deepEqual(
      HOSTS.map((h) => refusals(h).length).reduce((a, b) => a + b),
      1,
      HOSTS.map((h) => `${h}: ${lab.host(h).sudoLog().join(' | ')}`).join('\n'),
    );
    const tried = HOSTS.find((h) => refusals(h).length === 1);
    for (const r of results) {
      if (r.host.label === tried) assert.match(r.result?.message ?? '', /^sudo did not accept the password/);
      else assert.equal(r.error, `not run: sudo refused the password on ${tried}, so it was not sent here`);
    }
    for (const h of HOSTS) assert.deepEqual(modprobes(h), [], `nothing ran on ${h}`);
  });

  it('the right password is checked on one host, then loads the module on every host as root', async () => {
    const { asked, results } = await groupFix({ password: SUDO_PW, remember: false });
    assert.equal(asked, 1);
    assert.deepEqual(
      results.map((r) => r.result?.status),
      HOSTS.map(() => 'applied'),
      JSON.stringify(results.map((r) => r.result?.message ?? r.error)),
    );
    for (const h of HOSTS) assert.deepEqual(modprobes(h), [[0, ['nvidia_peermem']]], `modprobe ran once on ${h}, as root`);
    assert.equal(
      HOSTS.map((h) => refusals(h).length).reduce((a, b) => a + b),
      1,
      'no new refusal',
    );
  });
});
