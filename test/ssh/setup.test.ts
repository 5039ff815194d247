// `npm test` starts with test/setup.sh, which installs what the SSH and VS Code suites need or stops
// at once saying why. On a machine where everything is installed (this one: the lab and the e2e
// tools are here, as the suites that follow need) it must say nothing; for a user who is not root it
// must stop before trying anything, naming the reason and what to run instead. Needs root (setpriv).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/paths';

const SETUP = path.join(REPO_ROOT, 'test/setup.sh');

function run(argv: string[]) {
  const r = spawnSync(argv[0], argv.slice(1), { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
  return { rc: r.status, out: `${r.stdout}${r.stderr}`, stderr: r.stderr };
}

describe("npm test's set-up step (test/setup.sh)", function () {
  before(function () {
    assert.equal(process.getuid?.(), 0, 'this test needs root (it runs the set-up as root and, through setpriv, as nobody)');
  });

  it('says nothing and changes nothing when everything is installed', () => {
    const r = run(['sh', SETUP]);
    assert.equal(r.rc, 0, r.out);
    assert.equal(r.out, '');
  });

  it('stops at once for a user who is not root, saying why and what to run instead', () => {
    const r = run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'sh', SETUP]);
    assert.equal(r.rc, 1, r.out);
    assert.match(r.stderr, /^npm test: stopped: .*needs root\.\n/);
    assert.match(r.stderr, /npm run test:unit/);
    // Nothing was attempted: neither installer ran (each prints its own name when it does anything).
    assert.doesNotMatch(r.out, /install\.sh|e2e-setup|apt-get/);
  });
});
