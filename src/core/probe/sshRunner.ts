// The probe over SSH: the script goes on stdin to `/bin/sh -s`, so nothing of it is ever parsed
// by the remote login shell, and one exec carries every command. An abort signal makes exec()
// send TERM (then KILL) to the remote session, so the host's commands really stop.
import { Client } from 'ssh2';
import { exec } from '../ssh/exec';
import { ProbeRunner } from './runProbe';
import { PROBE_REMOTE_COMMAND } from './script';

export function sshRunner(client: Client, signal?: AbortSignal): ProbeRunner {
  return async (script, request) => {
    // Room for every command's capped stdout and stderr plus framing.
    const maxBytes = request.commands.length * request.maxOutputBytes * 2 + 1024 * 1024;
    const r = await exec(client, PROBE_REMOTE_COMMAND, { stdin: script, timeoutMs: request.deadlineMs, maxBytes, signal });
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, connectionLost: r.connectionLost, timedOut: r.timedOut };
  };
}
