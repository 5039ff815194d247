// Running the built CLI in a real terminal (a tmux pane), as a user at a shell sees it: what the
// pane shows, keys typed into it, and the CLI's stdout, stderr, exit status and terminal mode kept
// in files. Each test file uses its own tmux server (socket name), so several suites never meet.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LabHost } from '../lab/lab';
import { pidsWhere } from '../lab/procs';
import { CLI, REPO_ROOT } from './paths';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `s` as a literal inside a RegExp. */
export const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** `s` as one single-quoted shell word. */
export const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** One tmux server of our own, reached and killed by its socket name only, never by process name. */
export class TmuxServer {
  constructor(readonly socket: string) {}

  tmux(...args: string[]): string {
    const env = { ...process.env };
    delete env.TMUX; // a test run from inside tmux still gets its own server
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env });
  }

  /** Ends this server and its panes; nothing when none was ever started. */
  kill(): void {
    try {
      const socket = this.tmux('display-message', '-p', '#{socket_path}').trim();
      this.tmux('kill-server');
      fs.rmSync(socket, { force: true }); // tmux leaves its socket file behind
    } catch {
      // no session was ever started
    }
  }
}

export interface RunOptions {
  /** Shell redirection of the CLI's stdin, e.g. `</dev/null`; default: the pane's terminal. */
  readonly stdinRedirect?: string;
  /** Variables set for the CLI alone, besides the emptied SSH_AUTH_SOCK. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Where the CLI's stdout and stderr go. 'files' (default): to the files only, so the pane shows
   * just what the CLI writes to the terminal itself. 'terminal': to the pane, as at a plain shell
   * prompt, in the order written (the files stay empty). 'both': to the pane and, through one tee
   * each, to the files; the pane may then show the two streams' texts in either order.
   */
  readonly output?: 'files' | 'terminal' | 'both';
}

/** One CLI run in its own tmux pane, with its exit status, terminal mode and (see RunOptions.output) stdout and stderr kept in files. */
export class Run {
  readonly out: string;
  readonly err: string;
  private readonly rcFile: string;
  readonly sttyFile: string;

  constructor(
    readonly server: TmuxServer,
    readonly dir: string,
    readonly session: string,
    cliArgs: string[],
    options: RunOptions = {},
  ) {
    [this.out, this.err, this.rcFile, this.sttyFile] = ['out', 'err', 'rc', 'stty'].map((f) => path.join(dir, f));
    const vars = ['SSH_AUTH_SOCK=', ...Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${shq(v)}`)].join(' ');
    const cli = `env ${vars} ${shq(process.execPath)} ${shq(CLI)} ${cliArgs.map(shq).join(' ')}`;
    const output = options.output ?? 'files';
    const stdin = options.stdinRedirect ?? '';
    const cmd = [
      `cd ${shq(REPO_ROOT)}`,
      output === 'both'
        ? this.teed(cli, stdin)
        : output === 'terminal'
          ? `${cli} ${stdin}`
          : `${cli} >${shq(this.out)} 2>${shq(this.err)} ${stdin}`,
      // The terminal's mode after the CLI is gone: a prompt must not leave it without echo.
      `rc=$?; ${output === 'both' ? 'wait; ' : ''}stty -a >${shq(this.sttyFile)}; echo "[exit $rc]"; echo $rc >${shq(this.rcFile)}; exec sleep 600`,
    ].join('; ');
    server.tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '50', cmd);
  }

  /** POSIX sh: the CLI writes into two FIFOs, each read by a tee that copies to the pane and a file; its exit status is kept. */
  private teed(cli: string, stdinRedirect: string): string {
    const [outFifo, errFifo] = ['out.fifo', 'err.fifo'].map((f) => shq(path.join(this.dir, f)));
    return (
      `mkfifo ${outFifo} ${errFifo}; tee ${shq(this.out)} <${outFifo} & tee ${shq(this.err)} <${errFifo} >&2` +
      ` & ${cli} >${outFifo} 2>${errFifo} ${stdinRedirect}`
    );
  }

  /** Everything the pane showed, wrapped lines joined. */
  screen(): string {
    return this.server.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', this.session);
  }

  type(text: string): void {
    this.server.tmux('send-keys', '-t', this.session, '-l', text);
  }

  key(name: 'Enter' | 'C-c'): void {
    this.server.tmux('send-keys', '-t', this.session, name);
  }

  /** Waits until the pane shows `re` at least `times` times. */
  async waitFor(re: RegExp, times = 1, timeoutMs = 30_000): Promise<string> {
    const global = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const deadline = Date.now() + timeoutMs; ; await sleep(50)) {
      const screen = this.screen();
      if ((screen.match(global) ?? []).length >= times) return screen;
      if (Date.now() > deadline) assert.fail(`the pane never showed ${re} ${times}x; it shows:\n${screen}\nstderr: ${this.read('err')}`);
    }
  }

  async exitCode(timeoutMs = 45_000): Promise<number> {
    for (
      const deadline = Date.now() + timeoutMs;
      !fs.existsSync(this.rcFile) || fs.readFileSync(this.rcFile, 'utf8') === '';
      await sleep(50)
    ) {
      if (Date.now() > deadline) assert.fail(`the CLI did not exit; the pane shows:\n${this.screen()}`);
    }
    return Number(fs.readFileSync(this.rcFile, 'utf8').trim());
  }

  read(which: 'out' | 'err' | 'stty'): string {
    const file = which === 'out' ? this.out : which === 'err' ? this.err : this.sttyFile;
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  }
}

/** A case folder, and in it an ssh_config for alias `target` and its known_hosts. */
export interface SshCase {
  dir: string;
  conf: string;
  kh: string;
}

/** Creates `dir` with an ssh_config that logs in to `host` as `user` with one key and no agent. */
export function sshCase(
  dir: string,
  host: Pick<LabHost, 'address' | 'port' | 'hostKeyLine'>,
  user: string,
  identityFile: string,
  knownHosts: 'empty' | 'known',
): SshCase {
  fs.mkdirSync(dir);
  const kh = path.join(dir, 'known_hosts');
  fs.writeFileSync(kh, knownHosts === 'known' ? `${host.hostKeyLine}\n` : '');
  const conf = path.join(dir, 'ssh_config');
  const lines = [
    `HostName ${host.address}`,
    `Port ${host.port}`,
    `User ${user}`,
    `IdentityFile ${identityFile}`,
    'IdentitiesOnly yes',
    `UserKnownHostsFile ${kh}`,
    'GlobalKnownHostsFile /dev/null',
    'IdentityAgent none',
  ];
  fs.writeFileSync(conf, `Host target\n${lines.map((l) => `  ${l}\n`).join('')}`);
  return { dir, conf, kh };
}

/** Every process below `pid` (the per-connection sshd and its privilege-separated children). */
export function descendantPids(pid: number): number[] {
  const children = childPids(pid);
  return [...children, ...children.flatMap(descendantPids)];
}

export function childPids(pid: number): number[] {
  return pidsWhere(
    (p) =>
      Number(
        fs
          .readFileSync(`/proc/${p}/stat`, 'utf8')
          .replace(/^.*\) /, '')
          .split(' ')[1],
      ) === pid,
  );
}
