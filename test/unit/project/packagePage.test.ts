// The package page (Marketplace, the Extensions view): an icon, real categories, a README that opens
// with what the extension does for its user, and the walkthrough it points to.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Commands, ContextKeys, EXTENSION_ID, Views, WALKTHROUGH_ID } from '../../../src/constants';
import { REPO_ROOT } from '../../support/paths';
import { englishManifest } from '../../support/manifest';

const manifest = englishManifest();
const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): [number, number] {
  const b = fs.readFileSync(file);
  assert.equal(b.subarray(1, 4).toString('latin1'), 'PNG', `${file} is not a PNG`);
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

describe('the package page', () => {
  it('has a 128×128 PNG icon that the .vsix carries', () => {
    assert.equal(manifest.icon, 'media/icon.png');
    assert.deepEqual(pngSize(path.join(REPO_ROOT, manifest.icon)), [128, 128]);
    assert.match(fs.readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8'), /^!media\/icon\.png$/m);
  });

  it('is listed under categories other than "Other"', () => {
    assert.ok(manifest.categories.length > 0);
    assert.ok(!manifest.categories.includes('Other'));
  });

  it('README: the two set-up commands first, then what it does for its user, with a screenshot; developer set-up further down', () => {
    const lines = readme.split('\n');
    const firstBlock = readme.slice(readme.indexOf('```sh'), readme.indexOf('```', readme.indexOf('```sh') + 5));
    assert.match(firstBlock, /^npm ci && npm run sample/m);
    assert.match(firstBlock, /^npm test/m);
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    const screenshot = at(/!\[.*\]\((media|docs)\/.*\.png\)/);
    const install = at(/^## Install/);
    const firstSteps = at(/^## First steps/);
    const developers = at(/^## (Developing|Development|For developers)/);
    assert.ok(screenshot > 0 && install > 0 && firstSteps > 0 && developers > 0, 'screenshot, Install, First steps and a developer section');
    assert.ok(screenshot < install && install < firstSteps && firstSteps < developers, 'user-facing sections come before the developer set-up');
    for (const image of readme.matchAll(/!\[[^\]]*\]\(([^)]+\.png)\)/g)) assert.ok(fs.existsSync(path.join(REPO_ROOT, image[1])), image[1]);
  });
});

describe('the Getting Started walkthrough', () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  const commands = new Set(manifest.contributes.commands.map((c: { command: string }) => c.command));

  it('is the one the Get Started command opens', () => {
    assert.equal(walkthrough.id, WALKTHROUGH_ID);
    assert.ok(commands.has(Commands.gettingStarted));
    assert.equal(`${manifest.publisher}.${manifest.name}`, EXTENSION_ID);
  });

  it('walks from the demo to a fleet, each step completing on its real event', () => {
    const steps = walkthrough.steps as { id: string; completionEvents: string[]; media: { markdown?: string; image?: string }; description: string }[];
    assert.deepEqual(steps.map((s) => s.id), ['openDemo', 'readFinding', 'showTopology', 'applyFix', 'addHost', 'diagnoseFleet']);
    const keys = new Set<string>(Object.values(ContextKeys));
    for (const step of steps) {
      assert.ok(step.completionEvents.length > 0, step.id);
      for (const event of step.completionEvents) {
        const [kind, what] = event.split(/:(.*)/s);
        if (kind === 'onCommand') assert.ok(commands.has(what), `${step.id}: ${event}`);
        else if (kind === 'onContext') assert.ok(keys.has(what), `${step.id}: ${event} is not a key the extension sets`);
        else assert.fail(`${step.id}: ${event}`);
      }
      const media = step.media.markdown ?? step.media.image ?? '';
      assert.ok(fs.existsSync(path.join(REPO_ROOT, media)), `${step.id}: ${media}`);
      // Every button of a step runs a command the extension has, or the view's own focus command.
      for (const link of step.description.matchAll(/\(command:([\w.]+)\)/g)) assert.ok(commands.has(link[1]) || link[1] === `${Views.hosts}.focus`, link[1]);
    }
    assert.match(fs.readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8'), /^!media\/walkthrough\/\*\*$/m);
  });

  it('the welcome view links to it and leads with one button, the demo; the other actions are links', () => {
    const [welcome] = manifest.contributes.viewsWelcome;
    const lines: string[] = welcome.contents.split('\n');
    // A line holding only a command link is drawn as a button, and VS Code draws every button of an
    // extension's welcome view as a primary one (renderSecondaryButtons is not for extensions): one
    // button, so one primary.
    const buttons = lines.filter((l) => /^\[[^\]]+\]\(command:[^)]+\)$/.test(l));
    assert.deepEqual(buttons, ['[Open Demo Host](command:gdrDoctor.openDemoHost)']);
    const links = [...welcome.contents.matchAll(/\]\(command:([\w.]+)\)/g)].map((m) => m[1]);
    assert.deepEqual(links, [Commands.openDemoHost, Commands.addHost, Commands.addFleet, Commands.diagnoseThisMachine, Commands.gettingStarted]);
    assert.match(welcome.contents, /\[Getting Started walkthrough\]\(command:gdrDoctor\.gettingStarted\)/);
  });
});
