// `ssh -G`: OpenSSH's own answer for the effective configuration, used where a client is installed.
import { execFile } from 'node:child_process';
import { Destination } from './destination';
import { seconds, SshTarget, strictMode } from './sshConfig';

/** Builds the destination argument back from its parts, as `ssh` reads it. */
function destinationArg(dest: Destination): string[] {
  const args = dest.port !== null ? ['-p', String(dest.port)] : [];
  return [...args, '--', dest.user !== null ? `${dest.user}@${dest.host}` : dest.host];
}

/** Runs `ssh -G`; resolves null when no ssh client is installed or it refuses the input. */
export function sshG(dest: Destination, configFile?: string, sshBinary = 'ssh'): Promise<SshTarget | null> {
  const args = ['-G', ...(configFile !== undefined ? ['-F', configFile] : []), ...destinationArg(dest)];
  return new Promise((resolve) => {
    // No shell: the destination is one argv entry, never interpreted.
    execFile(sshBinary, args, { timeout: 10_000, env: { ...process.env, LC_ALL: 'C' } }, (err, stdout) => {
      resolve(err ? null : parseSshG(dest.host, stdout));
    });
  });
}

export function parseSshG(host: string, output: string): SshTarget {
  const values = new Map<string, string[]>();
  for (const line of output.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp <= 0) continue;
    const key = line.slice(0, sp);
    values.set(key, [...(values.get(key) ?? []), line.slice(sp + 1)]);
  }
  const one = (k: string) => values.get(k)?.[0] ?? null;
  const proxyJump = one('proxyjump');
  // ssh -G joins the list with spaces, so a path containing a space cannot be told apart here.
  const fileList = (k: string) => (one(k) ?? '').split(' ').filter((f) => f !== '' && f.toLowerCase() !== 'none');
  return {
    host,
    hostname: one('hostname') ?? host,
    user: one('user') ?? '',
    port: Number(one('port') ?? 22),
    identityFiles: values.get('identityfile') ?? [],
    identitiesOnly: one('identitiesonly') === 'yes',
    identityAgent: one('identityagent'),
    proxyJump: proxyJump === null || proxyJump === 'none' ? null : proxyJump,
    proxyCommand: one('proxycommand'),
    userKnownHostsFiles: fileList('userknownhostsfile'),
    globalKnownHostsFiles: fileList('globalknownhostsfile'),
    strictHostKeyChecking: strictMode(one('stricthostkeychecking')),
    hashKnownHosts: one('hashknownhosts') === 'yes',
    hostKeyAlias: one('hostkeyalias'),
    connectTimeout: seconds(one('connecttimeout')),
    serverAliveInterval: seconds(one('serveraliveinterval')) ?? 0,
    serverAliveCountMax: Number(one('serveralivecountmax') ?? 3),
    warnings: [],
  };
}
