// .vscode/launch.json and tasks.json as F5 uses them: the extension starts alone (other extensions
// disabled) under the default build task, which runs esbuild and tsc side by side; every task and
// launch configuration names scripts, tasks and programs that exist; and the tests can be debugged.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';

interface Task {
  label: string;
  type?: string;
  script?: string;
  dependsOn?: string[];
  isBackground?: boolean;
  group?: string | { kind: string; isDefault?: boolean };
  problemMatcher?: unknown;
}

interface Launch {
  name: string;
  type: string;
  program?: string;
  args?: string[];
  skipFiles?: string[];
  preLaunchTask?: string;
}

const read = (file: string) => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'));
const tasks: Task[] = read('.vscode/tasks.json').tasks;
const launches: Launch[] = read('.vscode/launch.json').configurations;
const scripts: Record<string, string> = read('package.json').scripts;
const byLabel = new Map(tasks.map((t) => [t.label, t]));

describe('.vscode: F5 and its tasks', () => {
  it('builds with esbuild and type-checks with tsc, both watching, as the default build task', () => {
    const defaults = tasks.filter((t) => typeof t.group === 'object' && t.group.kind === 'build' && t.group.isDefault);
    assert.deepEqual(
      defaults.map((t) => t.label),
      ['watch'],
    );
    const parts = (defaults[0].dependsOn ?? []).map((label) => byLabel.get(label));
    assert.deepEqual(
      parts.map((t) => t?.script),
      ['watch', 'watch:tsc'],
    );
    assert.ok(
      parts.every((t) => t?.isBackground),
      'both keep watching in the background',
    );
    assert.equal(byLabel.get('watch: tsc')?.problemMatcher, '$tsc-watch');
  });

  it('names only npm scripts, tasks and programs that exist', () => {
    for (const t of tasks) {
      if (t.type === 'npm') assert.ok(t.script && scripts[t.script], `task ${t.label}: npm script ${t.script}`);
      for (const d of t.dependsOn ?? []) assert.ok(byLabel.has(d), `task ${t.label} depends on ${d}`);
    }
    for (const l of launches) {
      if (l.preLaunchTask && l.preLaunchTask !== '${defaultBuildTask}')
        assert.ok(byLabel.has(l.preLaunchTask), `${l.name}: ${l.preLaunchTask}`);
      const program = l.program?.replace('${workspaceFolder}', REPO_ROOT);
      if (program && !program.includes(`${path.sep}dist${path.sep}`)) assert.ok(fs.existsSync(program), `${l.name}: ${program}`);
    }
  });

  it('runs the extension alone, skipping Node internals and dependencies while stepping', () => {
    const run = launches.find((l) => l.type === 'extensionHost');
    assert.ok(run?.args?.includes('--disable-extensions'), 'other extensions disabled');
    assert.equal(run?.preLaunchTask, '${defaultBuildTask}');
    for (const l of launches) assert.ok(l.skipFiles?.includes('<node_internals>/**'), `${l.name} skips Node internals`);
  });

  it('debugs each test suite (unit, ssh, e2e) as its npm script runs it', () => {
    const mocha = launches.filter((l) => l.program?.endsWith('node_modules/mocha/bin/mocha.js'));
    const asRun = mocha.map((l) => `mocha ${(l.args ?? []).map((a) => (a.includes('*') ? `'${a}'` : a)).join(' ')}`);
    // The e2e suite runs one mocha process per file (run-each.sh); its launch runs the file in the editor alike.
    const perFile = /^\s*npx (mocha .*) "\$f"/m.exec(fs.readFileSync(path.join(REPO_ROOT, 'test/e2e/run-each.sh'), 'utf8'));
    assert.ok(perFile, 'run-each.sh runs mocha on each file');
    assert.equal(scripts['test:e2e'], 'sh test/e2e/run-each.sh');
    assert.deepEqual(asRun.sort(), [`${perFile[1]} \${file}`, scripts['test:ssh'], scripts['test:unit']].sort());
  });
});
