import * as assert from 'node:assert/strict';
import { ConfigFs } from '../../../src/core/ssh/configFile';
import { listConfigHosts } from '../../../src/core/ssh/configHosts';

function memFs(files: Record<string, string>): ConfigFs {
  return {
    readFile: (f) => files[f] ?? null,
    listDir: (d) => {
      const prefix = d.endsWith('/') ? d : `${d}/`;
      const names = Object.keys(files)
        .filter((f) => f.startsWith(prefix))
        .map((f) => f.slice(prefix.length).split('/')[0]);
      return names.length > 0 ? [...new Set(names)] : null;
    },
  };
}

const env = (files: Record<string, string>, configFile?: string) => ({
  fs: memFs(files),
  home: '/home/u',
  localUser: 'u',
  localHost: 'here',
  configFile,
});

describe('listConfigHosts', () => {
  it('lists concrete Host aliases in file order, once, skipping patterns and negations', () => {
    const config = 'Host gpu-a gpu-b\n  User x\nHost *.lab !bad gpu-?\nHost gpu-a\nMatch host foo\nHost  "spaced"\n';
    assert.deepEqual(listConfigHosts(env({ '/home/u/.ssh/config': config })), ['gpu-a', 'gpu-b', 'spaced']);
  });

  it('follows Include (relative to ~/.ssh, with globs) and stops at a loop', () => {
    const files = {
      '/home/u/.ssh/config': 'Include conf.d/*\nHost top\n',
      '/home/u/.ssh/conf.d/a': 'Host from-a\nInclude ~/.ssh/config\n',
      '/home/u/.ssh/conf.d/b': 'Host from-b\n',
    };
    assert.deepEqual(listConfigHosts(env(files)), ['from-a', 'from-b', 'top']);
  });

  it('reads only the given file with -F semantics, nothing for "none" or a missing file', () => {
    const files = { '/home/u/.ssh/config': 'Host user-one\n', '/lab/ssh_config': 'Host lab-1\n' };
    assert.deepEqual(listConfigHosts(env(files, '/lab/ssh_config')), ['lab-1']);
    assert.deepEqual(listConfigHosts(env(files, 'none')), []);
    assert.deepEqual(listConfigHosts(env({}, '/missing')), []);
  });
});
