// The probe over SSH: the script goes on stdin to `/bin/sh -s`, so nothing of it is ever parsed
// by the remote login shell, and one exec carries every command. An abort signal makes exec()
// send TERM (then KILL) to the remote session, so the host's commands really stop.
import { Client } from 'ssh2';
import { exec } from '../ssh/exec';
import { ProbeRunner } from '../probe/runProbe';
import { PROBE_REMOTE_COMMAND } from '../probe/script';
import { HeadKeeper, HOST_STREAM_BUDGET, ProbeStdout, STDERR_KEEP_BYTES } from '../probe/streamCaps';

export function sshRunner(client: Client, signal?: AbortSignal): ProbeRunner {
  return async (script, request) => {
    // Room for every command's capped stdout and stderr plus framing, within the host's budget; login-shell
    // text before the probe and stderr are kept only in part (streamCaps.ts), however much of them arrives.
    const stdoutSink = new ProbeStdout(
      request.boundary,
      Math.min(HOST_STREAM_BUDGET, request.commands.length * request.maxOutputBytes * 2 + 1024 * 1024),
    );
    const stderrSink = new HeadKeeper(STDERR_KEEP_BYTES);
    const r = await exec(client, PROBE_REMOTE_COMMAND, {
      stdin: script,
      timeoutMs: request.deadlineMs,
      maxBytes: 0,
      signal,
      stdoutSink,
      stderrSink,
    });
    const { stdout, preambleCutBytes, streamCut } = stdoutSink.result();
    // exec()'s own error text (a channel that could not open) comes in the result, not through the sink.
    const stderr = Buffer.concat([stderrSink.contents(), r.stderr]);
    return {
      stdout,
      stderr,
      exitCode: r.exitCode,
      connectionLost: r.connectionLost,
      timedOut: r.timedOut,
      preambleCutBytes,
      stderrCutBytes: stderrSink.cutBytes,
      streamCut,
    };
  };
}
