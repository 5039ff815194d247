// SshPrompts for the CLI. On a terminal, questions are asked with OpenSSH's wording, and secrets
// are read with echo off (raw mode, restored on every way out). Without a terminal (CI, pipes) or
// with --batch nothing is asked: every question is answered No, as `ssh -o BatchMode=yes` does.
// Prompts go to /dev/tty (stderr as a fallback), never to stdout, which carries --json.
// Typed answers are handed to the SSH layer only: never written, echoed or logged.
import * as fs from 'node:fs';
import * as tty from 'node:tty';
import { openSshKeyTypeName } from '../core/ssh/fingerprint';
import { HostKeyQuestion, noPrompts, SshPrompts } from '../core/ssh/prompts';
import { PromptTerminal, RawInput, rawTtyTerminal } from './ttyLine';
import { visible } from './visible';

export { openSshKeyTypeName };
export type { PromptTerminal };

/** SshPrompts the CLI closes once every host is done, so no question outlives its connection. */
export interface CliPrompts extends SshPrompts {
  /** Ends a question still waiting (its connection failed meanwhile) and answers later ones No. */
  close(): void;
}

/** The unknown-host question, worded as OpenSSH 9 asks it. */
export function hostKeyQuestionText(q: HostKeyQuestion): string {
  return (
    `The authenticity of host '${q.host}' can't be established.\n` +
    `${openSshKeyTypeName(q.keyType)} key fingerprint is ${q.fingerprint}.\n` +
    'Are you sure you want to continue connecting (yes/no/[fingerprint])? '
  );
}

/** What ssh says once it has written an accepted key down. */
export function hostKeyAddedText(q: HostKeyQuestion): string {
  return `Warning: Permanently added '${q.host}' (${openSshKeyTypeName(q.keyType)}) to the list of known hosts.\n`;
}

/**
 * Only a deliberate "yes" (any case) or the fingerprint itself, pasted, trusts a key. Everything
 * else, an empty answer included, is No: unlike ssh we do not ask again, so a stray Enter is safe.
 */
export function acceptsHostKey(answer: string | null, fingerprint: string): boolean {
  if (answer === null) return false;
  const a = answer.trim();
  return a.toLowerCase() === 'yes' || a === fingerprint;
}

export const passphrasePrompt = (keyFile: string): string => `Enter passphrase for key '${keyFile}': `;
export const passwordPrompt = (user: string, host: string): string => `${user}@${host}'s password: `;
export const PASSWORD_RETRY_TEXT = 'Permission denied, please try again.\n';

/** Name and instructions of a keyboard-interactive request, each on its own line when present. */
export function keyboardInteractiveHeader(name: string, instructions: string): string {
  return [name, instructions]
    .filter((t) => t !== '')
    .map((t) => (t.endsWith('\n') ? visible(t) : `${visible(t)}\n`))
    .join('');
}

/** Runs the tasks one after another: several hosts are reached at once, but a terminal holds one question. */
function oneAtATime(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const next = last.then(task, task);
    last = next.catch(() => undefined);
    return next;
  };
}

/** Asks on a terminal, one question at a time. */
export function terminalPrompts(term: PromptTerminal): CliPrompts {
  let closed = false;
  const serial = oneAtATime();
  // After close() nothing is asked any more: each question gets the same answer as a cancel.
  const queue = <T>(task: () => Promise<T>, cancelled: T) => serial(async () => (closed ? cancelled : task()));
  const passwords = passwordAsker(term);
  return {
    confirmHostKey: (q) => queue(() => askHostKey(term, q), false),
    passphrase: (keyFile) =>
      queue(async () => {
        term.write(passphrasePrompt(keyFile));
        const secret = await term.readLine(false);
        // As ssh: an empty passphrase means "skip this key", not "try the empty string".
        return secret === '' ? null : secret;
      }, null),
    password: (user, host) => queue(() => passwords(user, host), null),
    keyboardInteractive: (host, name, instructions, prompts) =>
      queue(() => askKeyboardInteractive(term, host, name, instructions, prompts), null),
    close: () => {
      closed = true;
      term.cancel?.();
    },
  };
}

async function askHostKey(term: PromptTerminal, q: HostKeyQuestion): Promise<boolean> {
  term.write(hostKeyQuestionText(q));
  const yes = acceptsHostKey(await term.readLine(true), q.fingerprint);
  if (yes && q.knownHostsFile) term.write(hostKeyAddedText(q));
  return yes;
}

function passwordAsker(term: PromptTerminal): (user: string, host: string) => Promise<string | null> {
  const asked = new Set<string>();
  // The SSH layer queues several password tries; once the user cancels one, the rest are not asked.
  const cancelled = new Set<string>();
  return async (user, host) => {
    const login = `${user}@${host}`;
    if (cancelled.has(login)) return null;
    // ssh says why it asks again: a second call for the same login means the last password failed.
    if (asked.has(login)) term.write(PASSWORD_RETRY_TEXT);
    asked.add(login);
    term.write(passwordPrompt(user, host));
    const secret = await term.readLine(false);
    if (secret === null) cancelled.add(login);
    return secret;
  };
}

async function askKeyboardInteractive(
  term: PromptTerminal,
  ...[host, name, instructions, prompts]: Parameters<SshPrompts['keyboardInteractive']>
): Promise<string[] | null> {
  term.write(keyboardInteractiveHeader(name, instructions));
  const answers: string[] = [];
  for (const p of prompts) {
    // "(host) " says which host asks, as OpenSSH 8.4+ does; the server's text follows untouched.
    term.write(`(${host}) ${visible(p.prompt)}`);
    const answer = await term.readLine(p.echo);
    if (answer === null) return null;
    answers.push(answer);
  }
  return answers;
}

export const NON_INTERACTIVE_NOTICE =
  'gdr-doctor: not asking questions (%WHY%): an unknown host key is refused, so hosts must already be in ' +
  'known_hosts (or set StrictHostKeyChecking accept-new); passwords and passphrases are not asked: use a key or an agent.\n';

/** Answers every question No, saying once (at the first question) why nothing is asked. */
export function nonInteractivePrompts(notice: (text: string) => void, why: string): CliPrompts {
  let told = false;
  const tellOnce = () => {
    if (!told) notice(NON_INTERACTIVE_NOTICE.replace('%WHY%', why));
    told = true;
  };
  return {
    confirmHostKey: (q) => (tellOnce(), noPrompts.confirmHostKey(q)),
    passphrase: (f) => (tellOnce(), noPrompts.passphrase(f)),
    password: (u, h) => (tellOnce(), noPrompts.password(u, h)),
    keyboardInteractive: (h, n, i, p) => (tellOnce(), noPrompts.keyboardInteractive(h, n, i, p)),
    close: () => undefined,
  };
}

export interface CliPromptOptions {
  /** --batch: never ask, even on a terminal. */
  readonly batch: boolean;
  /** Where the non-interactive notice goes (the CLI's stderr). */
  readonly notice: (text: string) => void;
  /** Default: process.stdin. */
  readonly input?: RawInput & { isTTY?: boolean };
}

/**
 * The prompts the CLI uses: the terminal when stdin is one and --batch is not given, otherwise none.
 * ssh's warnings (a changed host key let through, an unusable identity file) go to stderr either
 * way, as ssh writes them, each line after the host it concerns.
 */
export function cliPrompts(opts: CliPromptOptions): CliPrompts {
  const warn = (host: string, lines: readonly string[]) => opts.notice(lines.map((l) => `${host}: ${l}\n`).join(''));
  if (opts.batch) return { ...nonInteractivePrompts(opts.notice, '--batch'), warn };
  // isatty(0) rather than process.stdin: creating that stream for a pipe is not free.
  const onTerminal = opts.input ? opts.input.isTTY === true : tty.isatty(0);
  if (!onTerminal) return { ...nonInteractivePrompts(opts.notice, 'standard input is not a terminal'), warn };
  return { ...terminalPrompts(rawTtyTerminal(opts.input ?? process.stdin, terminalWriter())), warn };
}

/** Writes to /dev/tty, opened at the first question; stderr where there is no controlling terminal. */
export function terminalWriter(): (text: string) => void {
  let fd: number | null | undefined;
  return (text) => {
    if (fd === undefined) {
      try {
        fd = fs.openSync('/dev/tty', 'w');
      } catch {
        fd = null;
      }
    }
    if (fd !== null) {
      try {
        fs.writeSync(fd, text);
        return;
      } catch {
        fd = null; // the terminal went away: say it on stderr instead
      }
    }
    process.stderr.write(text);
  };
}
