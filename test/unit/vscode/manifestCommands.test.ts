// The commands, settings and menus of package.json must name what src/constants.ts defines, every
// command sits in the "GPUDirect RDMA" category, and activation comes only from contributions.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROBE_COMMANDS } from '../../../src/core/probe/commands';
import { COMMAND_CATEGORY, Commands, Settings, Views } from '../../../src/constants';
import { REPO_ROOT } from '../../support/paths';
import { englishManifest } from '../../support/manifest';

const manifest = englishManifest();
const ours = (id: string) => id.startsWith('gdrDoctor.') && Object.values(Commands).includes(id as never);

describe('package.json: commands, menus, settings of the Hosts view', () => {
  it('contributes every command of constants.ts once, under the "GPUDirect RDMA" category', () => {
    const contributed = manifest.contributes.commands.filter((c: { command: string }) => ours(c.command));
    assert.deepEqual(contributed.map((c: { command: string }) => c.command).sort(), Object.values(Commands).sort());
    for (const c of contributed) assert.equal(c.category, COMMAND_CATEGORY, c.command);
  });

  it('menus name only contributed commands; Diagnose is inline on hosts', () => {
    const ids = new Set(manifest.contributes.commands.map((c: { command: string }) => c.command));
    const items = Object.values(manifest.contributes.menus).flat() as { command: string; when?: string; group?: string }[];
    for (const m of items) assert.ok(ids.has(m.command), m.command);
    assert.ok(items.some((m) => m.command === Commands.diagnose && m.group?.startsWith('inline') && m.when?.includes(Views.hosts)));
  });

  it('activates only through contributions (never "*") and declares untrusted-workspace support', () => {
    assert.ok(!manifest.activationEvents.includes('*'));
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  it('declares each setting the extension reads', () => {
    const props = manifest.contributes.configuration.properties;
    for (const [key, name] of Object.entries(Settings)) {
      if (key === 'section') continue;
      assert.ok(props[`${Settings.section}.${name}`], name);
    }
  });

  it('offers Add Host and Open Demo Host in the empty view, keeping the welcome words', () => {
    const [welcome] = manifest.contributes.viewsWelcome.filter((w: { view: string }) => w.view === Views.hosts);
    assert.match(welcome.contents, /No hosts yet\./);
    assert.match(welcome.contents, /\[Add Host…\]\(command:gdrDoctor\.addHost\)/);
    assert.match(welcome.contents, /\[Open Demo Host\]\(command:gdrDoctor\.openDemoHost\)/);
  });

  it('ships the demo host: every diagnostic\'s recording under media/demo/host, which the .vsix carries', () => {
    assert.match(fs.readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8'), /^!media\/demo\/\*\*$/m);
    for (const c of PROBE_COMMANDS) assert.ok(fs.existsSync(path.join(REPO_ROOT, 'media/demo/host', `${c.id}.txt`)), c.id);
  });
});
