// kubectl exec / attach over WebSocket (subprotocol v5.channel.k8s.io, else v4), bridged into a lab SSH
// host: each binary frame starts with its channel byte (0 stdin, 1 stdout, 2 stderr, 3 error: a
// Status whose NonZeroExitCode cause carries the exit code, 4 resize); in v5 the frame [255, 0] closes
// stdin. The command runs in the lab host over real ssh as root (a driver pod is privileged with the
// host's PID namespace, so `nsenter -t 1 …` there reaches the host, as in the lab host here).
import { ChildProcess, spawn } from 'node:child_process';
import type { WebSocket } from 'ws';

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs argv in the lab host `host` (a name in the lab's ssh_config) as root, over ssh. */
export function sshSpawn(sshConfigPath: string, host: string, argv: readonly string[]): ChildProcess {
  return spawn(
    'ssh',
    ['-F', sshConfigPath, '-l', 'root', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR', host, '--', argv.map(quote).join(' ')],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
}

export function statusFor(code: number | null, argv: readonly string[]): Record<string, unknown> {
  if (code === 0) return { metadata: {}, status: 'Success' };
  const exit = code ?? 137;
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${argv.join(' ')}], exit code ${exit}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exit) }] },
  };
}

/** Streams between the WebSocket and the child until it exits; closing the socket kills the child. */
export function bridge(ws: WebSocket, child: ChildProcess, argv: readonly string[], onEnd?: (code: number | null) => void): void {
  const v5 = ws.protocol === 'v5.channel.k8s.io';
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data]));
  };
  child.stdout?.on('data', (d: Buffer) => send(1, d));
  child.stderr?.on('data', (d: Buffer) => send(2, d));
  child.stdin?.on('error', () => undefined);
  ws.on('message', (data: Buffer) => {
    const channel = data[0];
    if (channel === 0) child.stdin?.write(data.subarray(1));
    else if (v5 && channel === 255 && data[1] === 0) child.stdin?.end();
  });
  ws.on('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.on('close', (code) => {
    send(3, Buffer.from(JSON.stringify(statusFor(code, argv))));
    ws.close(1000);
    onEnd?.(code);
  });
}
