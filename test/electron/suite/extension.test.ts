// gdr-doctor in a desktop VS Code, driven only through what any extension or user can reach: its
// manifest, activation and commands (never by importing src/, which would load a second copy).
import * as assert from 'assert';
import * as vscode from 'vscode';

const EXTENSION_ID = 'gdr-doctor.gdr-doctor';
/** A host row as the Hosts view passes it to a command (the demo host's id is `demo`). */
const DEMO_NODE = { kind: 'host', id: 'demo', hostId: 'demo' };

interface Manifest {
  contributes: { commands: { command: string }[] };
}

describe('gdr-doctor in a desktop VS Code (@vscode/test-electron)', () => {
  let extension: vscode.Extension<unknown>;

  before(() => {
    const found = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(found, `${EXTENSION_ID} is not loaded`);
    extension = found;
  });

  it('activates without an error', async () => {
    await extension.activate();
    assert.strictEqual(extension.isActive, true);
  });

  it('registers every command its manifest contributes', async () => {
    const contributed = (extension.packageJSON as Manifest).contributes.commands.map((c) => c.command);
    assert.ok(contributed.length > 0);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepStrictEqual(
      contributed.filter((id) => !registered.has(id)),
      [],
    );
  });

  it('diagnoses the demo host: its Markdown report names the host and its findings', async () => {
    await vscode.commands.executeCommand('gdrDoctor.openDemoHost');
    await vscode.commands.executeCommand('gdrDoctor.diagnose', DEMO_NODE);
    await vscode.env.clipboard.writeText('');
    await vscode.commands.executeCommand('gdrDoctor.copyReport', DEMO_NODE);
    const report = await vscode.env.clipboard.readText();
    assert.match(report, /^# GPUDirect RDMA report: `demo-hgx-h100 \(replayed\)`\n/);
    // Markdown escapes the underscores of nvidia_peermem and mlx5_1.
    assert.match(report, /^### Error: nvidia\\_peermem is not loaded \(`peermem\.not-loaded`\)$/m);
    assert.match(report, /^### Warning: No active port on mlx5\\_1 \(`rdma\.port-down`\)$/m);
  });
});
