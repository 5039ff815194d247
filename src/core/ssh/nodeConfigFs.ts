// The real file system behind ConfigFs, and the local facts (home, user, host) resolution needs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { readTextIfRegular } from '../regularFile';
import { ConfigFs } from './configFile';
import { ResolveEnv } from './sshConfig';

/** Far beyond any real ssh_config; a larger file is skipped. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

export const nodeConfigFs: ConfigFs = {
  // A missing config or Include target is skipped, as ssh skips it; so is a FIFO or device (ssh would wait on it).
  readFile: (file) => readTextIfRegular(file, MAX_CONFIG_BYTES),
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
