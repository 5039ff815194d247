// Holds gdr-doctor's ssh_config resolver to the real `ssh -G` on the same file, field by field.
import * as assert from 'node:assert/strict';
import { parseDestination } from '../../src/core/ssh/destination';
import { localResolveEnv } from '../../src/core/ssh/nodeConfigFs';
import { resolveSshConfig, SshTarget } from '../../src/core/ssh/sshConfig';
import { sshG } from '../../src/core/ssh/sshG';

function comparable(t: SshTarget): Omit<SshTarget, 'warnings'> {
  const { warnings, ...rest } = t;
  return rest;
}

/** Resolves `destination` through `config` both ways; they must agree. Returns ours. */
export async function assertSameAsSsh(config: string, destination: string): Promise<SshTarget> {
  const dest = parseDestination(destination);
  const ours = resolveSshConfig(dest, localResolveEnv(config));
  const theirs = await sshG(dest, config);
  assert.ok(theirs, `ssh -G failed for ${destination}`);
  assert.deepEqual(comparable(ours), comparable(theirs), `resolution of ${destination} with ${config}`);
  return ours;
}
