// The real file system behind ConfigFs, and the local facts (home, user, host) resolution needs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { ConfigFs } from './configFile';
import { ResolveEnv } from './sshConfig';

export const nodeConfigFs: ConfigFs = {
  readFile(file) {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch {
      return null; // a missing config or Include target is skipped, as ssh skips it
    }
  },
  listDir(dir) {
    try {
      return fs.readdirSync(dir);
    } catch {
      return null;
    }
  },
};

export function localResolveEnv(configFile?: string): ResolveEnv {
  const info = os.userInfo();
  return {
    fs: nodeConfigFs,
    home: os.homedir(),
    localUser: info.username,
    localHost: os.hostname(),
    configFile,
    uid: info.uid,
    environment: process.env,
  };
}
