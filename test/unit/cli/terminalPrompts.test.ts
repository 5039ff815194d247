// The CLI's prompts without a terminal: OpenSSH's wording, how answers are read, line editing in
// raw mode, and that the terminal's mode is put back however a question ends.
import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { HostKeyQuestion } from '../../../src/core/ssh/prompts';
import {
  acceptsHostKey,
  cliPrompts,
  hostKeyAddedText,
  hostKeyQuestionText,
  keyboardInteractiveHeader,
  nonInteractivePrompts,
  openSshKeyTypeName,
  PromptTerminal,
  terminalPrompts,
} from '../../../src/cli/terminalPrompts';
import { applyKeys, rawTtyTerminal } from '../../../src/cli/ttyLine';
import { joinedRegExp } from '../../support/joinedRegExp';

const FP = 'SHA256:AdILD1j57/+RTi50QHLP21DhPr1YLSZof/48sok0Trs';
const question: HostKeyQuestion = {
  host: '[127.0.0.1]:46457',
  port: 46457,
  keyType: 'ssh-ed25519',
  fingerprint: FP,
  knownHostsFile: '/tmp/kh',
};

/** A terminal that answers from a script and keeps what was written and how each line was read. */
function scripted(answers: (string | null)[]) {
  const written: string[] = [];
  const echoes: boolean[] = [];
  const term: PromptTerminal = {
    write: (t) => written.push(t),
    readLine: async (echo) => {
      echoes.push(echo);
      assert.ok(answers.length > 0, 'asked more than the script answers');
      return answers.shift() as string | null;
    },
  };
  return { term, written, echoes, text: () => written.join('') };
}

/** Stands in for a tty.ReadStream: records the raw-mode changes, lets the test type keys. */
class FakeTty extends EventEmitter {
  isRaw = false;
  modes: boolean[] = [];
  paused = true;
  setRawMode(mode: boolean) {
    this.isRaw = mode;
    this.modes.push(mode);
  }
  setEncoding() {}
  resume() {
    this.paused = false;
  }
  pause() {
    this.paused = true;
  }
  type(keys: string) {
    this.emit('data', keys);
  }
}

describe('terminal prompts: wording', () => {
  it('names key types as OpenSSH does', () => {
    assert.equal(openSshKeyTypeName('ssh-ed25519'), 'ED25519');
    assert.equal(openSshKeyTypeName('ssh-rsa'), 'RSA');
    assert.equal(openSshKeyTypeName('ecdsa-sha2-nistp384'), 'ECDSA');
    assert.equal(openSshKeyTypeName('sk-ssh-ed25519@openssh.com'), 'ED25519-SK');
    assert.equal(openSshKeyTypeName('ssh-ed25519-cert-v01@openssh.com'), 'ED25519-CERT');
    assert.equal(openSshKeyTypeName('sk-ecdsa-sha2-nistp256-cert-v01@openssh.com'), 'ECDSA-SK-CERT');
    assert.equal(openSshKeyTypeName('ssh-unheard-of'), 'ssh-unheard-of');
  });

  it('asks about an unknown host with the lines OpenSSH 9.2 printed for the same lab host', () => {
    // OpenSSH_9.2p1 in a tmux pane against a lab host (its "(address)" part and the
    // "not known by any other names" line are left out: the question does not carry them).
    assert.equal(
      hostKeyQuestionText(question),
      "The authenticity of host '[127.0.0.1]:46457' can't be established.\n" +
        `ED25519 key fingerprint is ${FP}.\n` +
        'Are you sure you want to continue connecting (yes/no/[fingerprint])? ',
    );
    assert.equal(hostKeyAddedText(question), "Warning: Permanently added '[127.0.0.1]:46457' (ED25519) to the list of known hosts.\n");
  });

  it('prints keyboard-interactive name and instructions on their own lines, only when present', () => {
    assert.equal(keyboardInteractiveHeader('', ''), '');
    assert.equal(keyboardInteractiveHeader('Duo two-factor', ''), 'Duo two-factor\n');
    assert.equal(keyboardInteractiveHeader('', 'Enter the code.\n'), 'Enter the code.\n');
    assert.equal(keyboardInteractiveHeader('2FA', 'Enter the code.'), '2FA\nEnter the code.\n');
  });
});

describe('terminal prompts: answers', () => {
  it('trusts a key only on "yes" (any case) or the fingerprint itself; everything else is No', () => {
    for (const yes of ['yes', 'YES', 'Yes', ' yes ', FP]) assert.equal(acceptsHostKey(yes, FP), true, yes);
    for (const no of ['', 'no', 'y', 'ye', 'yess', 'yes please', 'SHA256:AdILD1j57', FP.toLowerCase()])
      assert.equal(acceptsHostKey(no, FP), false, no);
    assert.equal(acceptsHostKey(null, FP), false);
  });

  it('asks the host key question with echo on and says where the key was added', async () => {
    const t = scripted(['yes']);
    assert.equal(await terminalPrompts(t.term).confirmHostKey(question), true);
    assert.deepEqual(t.echoes, [true]);
    assert.equal(t.text(), hostKeyQuestionText(question) + hostKeyAddedText(question));
    const refused = scripted(['']);
    assert.equal(await terminalPrompts(refused.term).confirmHostKey(question), false);
    assert.doesNotMatch(refused.text(), /Permanently added/);
  });

  it('reads a passphrase with echo off; an empty one skips the key, Ctrl-C too', async () => {
    const t = scripted(['s3cret', '', null]);
    const p = terminalPrompts(t.term);
    assert.equal(await p.passphrase('/home/u/.ssh/id_ed25519'), 's3cret');
    assert.equal(await p.passphrase('/home/u/.ssh/id_ed25519'), null);
    assert.equal(await p.passphrase('/home/u/.ssh/id_ed25519'), null);
    assert.deepEqual(t.echoes, [false, false, false]);
    assert.equal(t.written[0], "Enter passphrase for key '/home/u/.ssh/id_ed25519': ");
    assert.ok(!t.text().includes('s3cret'));
  });

  it('asks a password as ssh does, says why when it asks again, and stops asking after Ctrl-C', async () => {
    const t = scripted(['wrong', null]);
    const p = terminalPrompts(t.term);
    assert.equal(await p.password('pwuser', 'gpu1'), 'wrong');
    assert.equal(await p.password('pwuser', 'gpu1'), null);
    assert.equal(await p.password('pwuser', 'gpu1'), null, 'not asked again after a cancel');
    assert.deepEqual(t.echoes, [false, false]);
    assert.deepEqual(t.written, ["pwuser@gpu1's password: ", 'Permission denied, please try again.\n', "pwuser@gpu1's password: "]);
  });

  it('shows keyboard-interactive prompts as sent, echoing only where the server asks', async () => {
    const t = scripted(['123456', 'alice']);
    const prompts = [
      { prompt: 'Verification code: ', echo: false },
      { prompt: 'Login as: ', echo: true },
    ];
    const answers = await terminalPrompts(t.term).keyboardInteractive('gpu1', 'Duo', 'Check your phone.', prompts);
    assert.deepEqual(answers, ['123456', 'alice']);
    assert.deepEqual(t.echoes, [false, true]);
    assert.deepEqual(t.written, ['Duo\nCheck your phone.\n', '(gpu1) Verification code: ', '(gpu1) Login as: ']);
    const cancelled = scripted([null]);
    assert.equal(await terminalPrompts(cancelled.term).keyboardInteractive('gpu1', '', '', prompts), null);
  });

  it('asks one question at a time when several hosts need an answer at once', async () => {
    const written: string[] = [];
    const pending: ((s: string) => void)[] = [];
    const p = terminalPrompts({ write: (t) => written.push(t), readLine: () => new Promise((r) => pending.push(r)) });
    const a = p.password('u', 'host-a');
    const b = p.password('u', 'host-b');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(written, ["u@host-a's password: "], 'host-b waits until host-a is answered');
    pending.shift()?.('pa');
    assert.equal(await a, 'pa');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(written, ["u@host-a's password: ", "u@host-b's password: "]);
    pending.shift()?.('pb');
    assert.equal(await b, 'pb');
  });
});

describe('terminal prompts: closing', () => {
  it('ends a question still waiting, restoring the terminal, and asks nothing afterwards', async () => {
    const tty = new FakeTty();
    const written: string[] = [];
    const p = terminalPrompts(rawTtyTerminal(tty, (t) => written.push(t)));
    const waiting = p.password('u', 'gone');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(tty.modes, [true]);
    p.close();
    assert.equal(await waiting, null);
    assert.deepEqual(tty.modes, [true, false]);
    assert.equal(tty.paused, true);
    assert.equal(await p.confirmHostKey(question), false);
    assert.equal(await p.passphrase('/k'), null);
    assert.equal(await p.keyboardInteractive('h', '', '', [{ prompt: 'Code: ', echo: true }]), null);
    assert.deepEqual(written, ["u@gone's password: ", '\n'], 'nothing asked after close');
    assert.deepEqual(tty.modes, [true, false]);
  });
});

describe('terminal prompts: non-interactive', () => {
  it('answers every question No and says why once, at the first question', async () => {
    const notices: string[] = [];
    const p = nonInteractivePrompts((t) => notices.push(t), '--batch');
    assert.deepEqual(notices, [], 'nothing said before a question arises');
    assert.equal(await p.confirmHostKey(question), false);
    assert.equal(await p.password('u', 'h'), null);
    assert.equal(await p.passphrase('/k'), null);
    assert.equal(await p.keyboardInteractive('h', '', '', [{ prompt: 'Password: ', echo: false }]), null);
    assert.equal(notices.length, 1);
    assert.match(
      notices[0],
      joinedRegExp([
        /^gdr-doctor: not asking questions \(--batch\)/,
        /: an unknown host key is refused, so hosts must already be in known_hosts \(or set StrictHostKeyChecking accept-new\)/,
      ]),
    );
  });

  it('is what the CLI uses with --batch (even on a terminal) and when stdin is not a terminal', async () => {
    for (const [batch, isTTY, why] of [
      [true, true, '--batch'],
      [false, false, 'standard input is not a terminal'],
    ] as const) {
      const tty = Object.assign(new FakeTty(), { isTTY });
      const notices: string[] = [];
      const p = cliPrompts({ batch, notice: (t) => notices.push(t), input: tty });
      assert.equal(await p.confirmHostKey(question), false);
      assert.deepEqual(tty.modes, [], 'the terminal was never touched');
      assert.match(notices[0], new RegExp(`not asking questions \\(${why.replace(/-/g, '\\-')}\\)`));
    }
  });
});

describe('terminal prompts: reading keys in raw mode', () => {
  it('ends a line on Enter and keeps what was typed past it', () => {
    assert.deepEqual(applyKeys('', 'yes\r', true), { line: 'yes', shown: 'yes', end: 'enter', rest: '' });
    assert.deepEqual(applyKeys('ye', 's\r\nnext\r', true), { line: 'yes', shown: 's', end: 'enter', rest: 'next\r' });
    assert.deepEqual(applyKeys('', 'pw\n', false), { line: 'pw', shown: '', end: 'enter', rest: '' });
  });

  it('shows nothing of a secret, and edits it with backspace and Ctrl-U', () => {
    assert.deepEqual(applyKeys('', 'secrex\x7ft', false), { line: 'secret', shown: '', end: null, rest: '' });
    assert.deepEqual(applyKeys('abc', '\x15xy\b', false), { line: 'x', shown: '', end: null, rest: '' });
    assert.deepEqual(applyKeys('ab', '\x7f', true), { line: 'a', shown: '\b \b', end: null, rest: '' });
    assert.deepEqual(applyKeys('ab', '\x15', true), { line: '', shown: '\b \b\b \b', end: null, rest: '' });
    assert.deepEqual(applyKeys('', '\x7f', true), { line: '', shown: '', end: null, rest: '' });
    assert.deepEqual(applyKeys('pä😀', '\x7f', false).line, 'pä', 'a backspace removes a whole character');
  });

  it('cancels on Ctrl-C, and on Ctrl-D only when the line is empty', () => {
    assert.deepEqual(applyKeys('half', '\x03more', false), { line: '', shown: '', end: 'cancel', rest: 'more' });
    assert.equal(applyKeys('', '\x04', false).end, 'cancel');
    assert.deepEqual(applyKeys('ab', '\x04', false), { line: 'ab', shown: '', end: null, rest: '' });
  });

  it('leaves arrow keys and other control keys out of the answer', () => {
    assert.equal(applyKeys('', 'y\x1b[Ae\x1b[1;5Ds\x1bOA\t\x01', true).line, 'yes');
  });

  for (const [how, keys] of [
    ['Enter', 'pw\r'],
    ['Ctrl-C', 'p\x03'],
    ['Ctrl-D', '\x04'],
  ] as const) {
    it(`puts the terminal back in its mode after ${how}`, async () => {
      const tty = new FakeTty();
      const written: string[] = [];
      const line = rawTtyTerminal(tty, (t) => written.push(t)).readLine(false);
      assert.deepEqual(tty.modes, [true]);
      assert.equal(tty.paused, false);
      tty.type(keys);
      assert.equal(await line, how === 'Enter' ? 'pw' : null);
      assert.deepEqual(tty.modes, [true, false]);
      assert.equal(tty.paused, true, 'a paused terminal lets the process exit');
      assert.equal(tty.listenerCount('data'), 0);
      assert.deepEqual(written, ['\n'], 'nothing of the secret was echoed');
    });
  }

  it('puts the terminal back when input ends, and keeps a terminal that was already raw raw', async () => {
    const tty = new FakeTty();
    const line = rawTtyTerminal(tty, () => undefined).readLine(true);
    tty.emit('end');
    assert.equal(await line, null);
    assert.deepEqual(tty.modes, [true, false]);
    const raw = new FakeTty();
    raw.isRaw = true;
    const answer = rawTtyTerminal(raw, () => undefined).readLine(true);
    raw.type('x\r');
    await answer;
    assert.deepEqual(raw.modes, [true, true]);
  });

  it('echoes an answer that may be shown, and hands keys typed ahead to the next question', async () => {
    const tty = new FakeTty();
    const written: string[] = [];
    const term = rawTtyTerminal(tty, (t) => written.push(t));
    const first = term.readLine(true);
    tty.type('yes\rpw2\r');
    assert.equal(await first, 'yes');
    assert.deepEqual(written, ['yes', '\n']);
    assert.equal(await term.readLine(false), 'pw2');
    assert.deepEqual(written, ['yes', '\n', '\n']);
    assert.deepEqual(tty.modes, [true, false, true, false]);
  });
});
