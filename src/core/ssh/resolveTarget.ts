// Resolves a destination the way the user's own ssh would: `ssh -G` where an OpenSSH client is
// installed (exact), else gdr-doctor's ssh_config resolver (same answers for the keys it uses).
import { Destination } from './destination';
import { localResolveEnv } from './nodeConfigFs';
import { resolveSshConfig, SshTarget } from './sshConfig';
import { sshG } from './sshG';

export async function resolveTarget(dest: Destination, configFile?: string): Promise<SshTarget> {
  const fromSsh = await sshG(dest, configFile);
  let parsed: SshTarget;
  try {
    parsed = resolveSshConfig(dest, localResolveEnv(configFile));
  } catch (e) {
    // Ours stops where ssh 9.2 stops (an unknown token, say); a newer ssh may know more.
    if (fromSsh) return fromSsh;
    throw e;
  }
  // ssh -G cannot show Match exec warnings or known_hosts paths containing spaces: keep ours there.
  return fromSsh ? { ...fromSsh, userKnownHostsFiles: parsed.userKnownHostsFiles, warnings: parsed.warnings } : parsed;
}
