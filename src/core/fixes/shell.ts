// How a fix reaches a host: one command line at a time, with optional stdin (sudo's password).
// The SSH adapter is a thin layer over ssh/exec; tests pass their own shell.
import { Client } from 'ssh2';
import { exec } from '../ssh/exec';

export interface ShellResult {
  readonly exitCode: number | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  /** The channel closed without an exit status. */
  readonly connectionLost: boolean;
  readonly timedOut: boolean;
}

export interface RemoteShell {
  /** Runs one command line through the login shell; `stdin` is written and closed (none: closed at once). */
  run(command: string, options: { readonly stdin?: string; readonly timeoutMs: number }): Promise<ShellResult>;
}

/** Fix commands print a few lines; more than this is cut (and the step then fails as truncated output would). */
const MAX_FIX_OUTPUT_BYTES = 1024 * 1024;

export function sshShell(client: Client): RemoteShell {
  return {
    run: async (command, { stdin, timeoutMs }) => {
      const r = await exec(client, command, { stdin, timeoutMs, maxBytes: MAX_FIX_OUTPUT_BYTES });
      return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, connectionLost: r.connectionLost, timedOut: r.timedOut };
    },
  };
}
