// The import rules in .dependency-cruiser.cjs (run by `npm run lint`) must really fire: each case lays out a
// few files in a scratch tree shaped like src/ and runs dependency-cruiser on it as the lint script does.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../../support/paths';

const DEPCRUISE = path.join(REPO_ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = path.join(REPO_ROOT, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Writes `files` (path under the scratch root → source) and returns the rules dependency-cruiser breaks. */
function violations(files: Record<string, string>): string[] {
  return inScratchTree(files, (root) => {
    const run = spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'json'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.ok(run.stdout, `dependency-cruiser wrote nothing: ${run.stderr}`);
    const found: Violation[] = JSON.parse(run.stdout).summary.violations;
    return found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  });
}

/** The exit status of the command `npm run lint` runs, on `files`. */
function lintStatus(files: Record<string, string>): number | null {
  return inScratchTree(files, (root) => spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG], { cwd: root }).status);
}

function inScratchTree<T>(files: Record<string, string>, use: (root: string) => T): T {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-imports-'));
  try {
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true } }));
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    return use(root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe('import rules (dependency-cruiser)', function () {
  this.timeout(60_000);

  const typeCycle = {
    'src/cli/a.ts': "import type { B } from './b';\nexport interface A { b?: B }\n",
    'src/cli/b.ts': "import type { A } from './a';\nexport interface B { a?: A }\n",
  };

  it('rejects an import cycle made of type-only imports', () => {
    const found = violations(typeCycle);
    assert.ok(found.includes('no-circular: src/cli/a.ts → src/cli/b.ts'), found.join('\n'));
  });

  it('fails the lint command on a broken rule, and passes it without one', () => {
    assert.notEqual(lintStatus(typeCycle), 0);
    assert.equal(
      lintStatus({ 'src/cli/a.ts': "import type { B } from './b';\nexport type A = B;\n", 'src/cli/b.ts': 'export type B = 1;\n' }),
      0,
    );
  });

  it('rejects a parser that imports another part of src/core', () => {
    const found = violations({
      'src/core/probe/facts.ts': 'export const x = 1;\n',
      'src/core/parsers/p.ts': "import { x } from '../probe/facts';\nexport const y = x;\n",
    });
    assert.deepEqual(found, ['parsers-stand-alone: src/core/parsers/p.ts → src/core/probe/facts.ts']);
  });

  it('lets the webview import src/protocol and nothing else of src/', () => {
    const found = violations({
      'src/protocol/topology.ts': 'export const p = 1;\n',
      'src/core/parsers/topo.ts': 'export const t = 1;\n',
      'src/webview/main.ts':
        "import { p } from '../protocol/topology';\nimport { t } from '../core/parsers/topo';\nexport const m = p + t;\n",
    });
    assert.deepEqual(found, ['webview-only-protocol: src/webview/main.ts → src/core/parsers/topo.ts']);
  });

  it('rejects src/protocol importing outside itself', () => {
    const found = violations({
      'src/core/parsers/topo.ts': 'export const t = 1;\n',
      'src/protocol/topology.ts': "import { t } from '../core/parsers/topo';\nexport const p = t;\n",
    });
    assert.deepEqual(found, ['protocol-stand-alone: src/protocol/topology.ts → src/core/parsers/topo.ts']);
  });

  it('keeps every way of reaching a host below core/host: transport never imports what diagnoses', () => {
    const found = violations({
      'src/core/host/diagnoseHost.ts': "import { probeHost } from '../transport';\nexport const d = probeHost;\n",
      'src/core/transport/index.ts': "import { local } from './local';\nexport const probeHost = local;\n",
      'src/core/transport/local.ts': "import { frames } from '../probe/frames';\nexport const local = frames;\n",
      'src/core/probe/frames.ts': 'export const frames = 1;\n',
      'src/core/transport/relay.ts': "import { d } from '../host/diagnoseHost';\nexport const relay = d;\n",
    });
    assert.deepEqual(found, ['transport-below-host: src/core/transport/relay.ts → src/core/host/diagnoseHost.ts']);
  });

  it('lets the rest of src/ reach a host only through src/core/transport/index.ts', () => {
    const found = violations({
      'src/core/transport/index.ts': "export { local } from './local';\n",
      'src/core/transport/local.ts': 'export const local = 1;\n',
      'src/core/host/diagnoseHost.ts': "import { local } from '../transport';\nexport const d = local;\n",
      'src/cli/diagnose.ts': "import { local } from '../core/transport/local';\nexport const c = local;\n",
    });
    assert.deepEqual(found, ['transport-through-its-index: src/cli/diagnose.ts → src/core/transport/local.ts']);
  });

  it('rejects a fix reaching back up into core/host', () => {
    const found = violations({
      'src/core/host/diagnoseHost.ts': 'export const probeHost = 1;\n',
      'src/core/fixes/session.ts': "import { probeHost } from '../host/diagnoseHost';\nexport const s = probeHost;\n",
    });
    assert.deepEqual(found, ['fixes-below-host: src/core/fixes/session.ts → src/core/host/diagnoseHost.ts']);
  });

  it('rejects src/core importing an adapter', () => {
    const found = violations({
      'src/vscode/logging.ts': 'export const log = 1;\n',
      'src/core/diagnosis/rule.ts': "import { log } from '../../vscode/logging';\nexport const r = log;\n",
    });
    assert.deepEqual(found, ['core-below-adapters: src/core/diagnosis/rule.ts → src/vscode/logging.ts']);
  });

  it('keeps the CLI and the VS Code adapters apart, both ways', () => {
    const found = violations({
      'src/vscode/logging.ts': "import { io } from '../cli/io';\nexport const log = io;\n",
      'src/cli/io.ts': 'export const io = 1;\n',
      'src/cli/report.ts': "import { log } from '../vscode/logging';\nexport const r = log;\n",
    });
    assert.deepEqual(found.sort(), [
      'cli-apart-from-vscode: src/cli/report.ts → src/vscode/logging.ts',
      'vscode-apart-from-cli: src/vscode/logging.ts → src/cli/io.ts',
    ]);
  });
});
