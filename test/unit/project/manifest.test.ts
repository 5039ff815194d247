// package.json's contributions and src/constants.ts must name the same ids, or views and
// commands silently stop working.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ViewContainers, Views } from '../../../src/constants';
import { diagnoseHelp } from '../../../src/cli/diagnoseCommand';
import { RELAY_PREFERENCE, RELAY_TOOLS } from '../../../src/core/transport/relay/tools';
import { REPO_ROOT } from '../../support/paths';
import { englishManifest } from '../../support/manifest';

const manifest = englishManifest();

describe('package.json manifest', () => {
  it('declares the names, entry points and engine the issue fixes', () => {
    assert.equal(manifest.name, 'gdr-doctor');
    assert.equal(manifest.displayName, 'GPUDirect RDMA Doctor');
    assert.equal(manifest.engines.vscode, '^1.90.0');
    assert.equal(manifest.main, './dist/extension.js');
    assert.deepEqual(manifest.bin, { 'gdr-doctor': './dist/cli.js' });
  });

  it('contributes the "GPUDirect RDMA" activity-bar container with the Hosts view', () => {
    const containers = manifest.contributes.viewsContainers.activitybar;
    assert.deepEqual(
      containers.map((c: { id: string }) => c.id),
      [ViewContainers.main],
    );
    assert.equal(containers[0].title, 'GPUDirect RDMA');
    assert.ok(fs.existsSync(path.join(REPO_ROOT, containers[0].icon)), 'container icon exists');
    const views = manifest.contributes.views[ViewContainers.main];
    assert.deepEqual(
      views.map((v: { id: string; name: string }) => [v.id, v.name]),
      [[Views.hosts, 'Hosts']],
    );
  });

  it('shows a welcome message in the empty Hosts view', () => {
    const welcome = manifest.contributes.viewsWelcome.filter((w: { view: string }) => w.view === Views.hosts);
    assert.equal(welcome.length, 1);
    assert.match(welcome[0].contents, /GPUDirect RDMA/);
  });

  it('has every npm script the README and CI rely on', () => {
    for (const script of ['build', 'test', 'lint', 'typecheck', 'sample', 'package', 'watch']) {
      assert.ok(manifest.scripts[script], `script ${script}`);
    }
  });

  it("offers a fleet's relay tools as the relay's table has them, in its order of preference", () => {
    const settings = Object.assign({}, ...[manifest.contributes.configuration].flat().map((c: { properties: object }) => c.properties));
    const withTool = settings['gdrDoctor.fleets'].items.properties.with;
    assert.deepEqual(withTool.enum, RELAY_TOOLS);
    assert.equal(withTool.enumDescriptions.length, RELAY_TOOLS.length);
    assert.ok(withTool.description.includes(`(${RELAY_PREFERENCE})`), withTool.description);
  });

  it("names the relay tools in the CLI's help from the same table, each with the command it runs", () => {
    const line = diagnoseHelp()
      .split('\n')
      .find((l) => l.startsWith('  --with TOOL'));
    assert.equal(line?.replace(/;.*/, ''), '  --with TOOL        slurm (srun), pdsh or clush');
    assert.ok(diagnoseHelp().includes(`[--with ${RELAY_TOOLS.join('|')}]`));
  });
});
