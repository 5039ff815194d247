// code-server driven the way a user runs it: the extension goes in as a packaged .vsix through
// `--install-extension`, and the server listens on loopback only. Every process started here is
// stopped by its own PID (its process group), also when the test run itself dies.
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { E2eTools, REPO_ROOT } from './environment';
import { freePort } from '../lab/ports';

export interface CodeServerDirs {
  /** code-server's own config file; without --config it writes one under ~/.config. */
  config: string;
  /** $XDG_DATA_HOME for code-server: it keeps a heartbeat and logs there, not in user data. */
  xdgData: string;
  userData: string;
  extensions: string;
  workspace: string;
  log: string;
}

/**
 * Packages the extension with the project's own `npm run package` (so the script users run is the
 * one tested; vsce runs `vscode:prepublish`), or takes $GDR_E2E_VSIX as built.
 */
export function packageVsix(outDir: string): string {
  const prebuilt = process.env.GDR_E2E_VSIX;
  if (prebuilt) return path.resolve(prebuilt);
  const vsix = path.join(outDir, 'gdr-doctor.vsix');
  execFileSync('npm', ['run', 'package', '--', '-o', vsix], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
  return vsix;
}

export function installExtension(tools: E2eTools, dirs: CodeServerDirs, vsix: string): void {
  const out = execFileSync(
    tools.node,
    [
      tools.codeServer,
      '--config',
      dirs.config,
      '--user-data-dir',
      dirs.userData,
      '--extensions-dir',
      dirs.extensions,
      '--install-extension',
      vsix,
    ],
    { encoding: 'utf8', timeout: 120_000, env: codeServerEnv(dirs) },
  );
  if (!/successfully installed/i.test(out)) {
    throw new Error(`code-server did not install ${vsix}:\n${out}`);
  }
}

export class CodeServer {
  private exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    process.once('exit', this.killNow);
  }

  /** `locale`: VS Code's display language (`--locale zh-cn`), as a user sets it with Configure Display Language. */
  static async start(tools: E2eTools, dirs: CodeServerDirs, locale?: string): Promise<CodeServer> {
    const port = await freePort();
    const log = fs.openSync(dirs.log, 'w');
    // detached: a process group of its own, so stop() also ends the extension host it forks.
    const child = spawn(
      tools.node,
      [
        tools.codeServer,
        '--config',
        dirs.config,
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        ...(locale ? ['--locale', locale] : []),
        '--user-data-dir',
        dirs.userData,
        '--extensions-dir',
        dirs.extensions,
        dirs.workspace,
      ],
      { detached: true, stdio: ['ignore', log, log], env: codeServerEnv(dirs) },
    );
    fs.closeSync(log);
    const server = new CodeServer(child, `http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
    try {
      await waitForHealthz(port, 60_000, child);
    } catch (e) {
      await server.stop();
      throw new Error(`${(e as Error).message}\n--- ${dirs.log} ---\n${tail(dirs.log)}`);
    }
    return server;
  }

  async stop(): Promise<void> {
    process.removeListener('exit', this.killNow);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      signalGroup(this.child.pid, 'SIGTERM');
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5_000).unref());
      if ((await Promise.race([this.exited, timeout])) === 'timeout') signalGroup(this.child.pid, 'SIGKILL');
      await this.exited;
    }
    // The group may outlive its leader (an extension host shutting down): end the rest too.
    signalGroup(this.child.pid, 'SIGKILL');
  }

  private readonly killNow = (): void => signalGroup(this.child.pid, 'SIGKILL');
}

function codeServerEnv(dirs: CodeServerDirs): NodeJS.ProcessEnv {
  return { ...process.env, XDG_DATA_HOME: dirs.xdgData };
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

async function waitForHealthz(port: number, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited with code ${child.exitCode}`);
    if (await answers(`http://127.0.0.1:${port}/healthz`)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`code-server did not answer on port ${port} within ${timeoutMs / 1000} s`);
}

function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.once('error', () => resolve(false));
    req.setTimeout(2_000, () => req.destroy());
  });
}

function tail(file: string): string {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').slice(-30).join('\n') : '(no log)';
}
