// The hosts a user's ssh_config names: every concrete `Host` alias (no wildcard, no negation),
// following Include as the resolver does, in file order, each once. A sidebar lists them; the
// destination is then resolved through the same config (resolveTarget), so both agree.
import * as path from 'node:path';
import { includeTargets, readConfigLines } from './configFile';
import { ResolveEnv } from './sshConfig';

const MAX_INCLUDE_DEPTH = 16;

export function listConfigHosts(env: ResolveEnv): string[] {
  const names = new Set<string>();
  const userDir = path.join(env.home, '.ssh');
  const roots =
    env.configFile !== undefined
      ? env.configFile === 'none'
        ? []
        : [{ file: env.configFile, base: userDir }]
      : [{ file: path.join(userDir, 'config'), base: userDir }];
  for (const { file, base } of roots) collect(env, file, base, names, 0);
  return [...names];
}

function collect(env: ResolveEnv, file: string, base: string, names: Set<string>, depth: number): void {
  // Same guard as OpenSSH: an Include loop must not run forever.
  if (depth >= MAX_INCLUDE_DEPTH) return;
  for (const l of readConfigLines(env.fs, file) ?? []) {
    if (l.keyword === 'host') {
      for (const a of l.args) if (isConcrete(a)) names.add(a);
    } else if (l.keyword === 'include') {
      for (const pattern of l.args) {
        for (const target of includeTargets(env.fs, pattern, base, env.home)) collect(env, target, base, names, depth + 1);
      }
    }
  }
}

/** A name ssh would connect to as written: no pattern characters, no negation. */
function isConcrete(name: string): boolean {
  return name !== '' && !/[*?!]/.test(name);
}
