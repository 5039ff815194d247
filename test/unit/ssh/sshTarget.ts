// A resolved ssh target for unit tests: what `ssh -G` gives a bare host name with no ssh_config (port 22,
// no keys or proxies, strict checking `ask`), user gdr; each test overrides the fields it is about.
import type { SshTarget } from '../../../src/core/ssh/sshConfig';

export function sshTarget(host: string, over: Partial<SshTarget> = {}): SshTarget {
  return {
    host,
    hostname: host,
    user: 'gdr',
    port: 22,
    identityFiles: [],
    identitiesOnly: false,
    identityAgent: null,
    proxyJump: null,
    proxyCommand: null,
    userKnownHostsFiles: [],
    globalKnownHostsFiles: [],
    strictHostKeyChecking: 'ask',
    hashKnownHosts: false,
    hostKeyAlias: null,
    connectTimeout: null,
    serverAliveInterval: 0,
    serverAliveCountMax: 3,
    warnings: [],
    ...over,
  };
}
