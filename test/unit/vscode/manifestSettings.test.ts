// Settings as a user finds them: titled "GPUDirect RDMA", in a deliberate order, each with the scope
// that lets it be set where it belongs. In a remote window (Remote-SSH, code-server) the Settings
// editor's User tab lists only application, window, resource and language-overridable settings, and
// VS Code reads only those from the local user file (workbench/services/configuration:
// LOCAL_MACHINE_SCOPES); machine and machine-overridable ones live under Remote.
import * as assert from 'node:assert/strict';
import { Settings } from '../../../src/constants';
import { englishManifest } from '../../support/manifest';

const manifest = englishManifest();
const configuration = manifest.contributes.configuration;
const props = configuration.properties as Record<
  string,
  {
    scope: string;
    order: number;
    markdownDescription?: string;
    description?: string;
    items?: { properties: Record<string, { description?: string }> };
  }
>;
const key = (name: string) => `${Settings.section}.${name}`;

/** Why each setting has its scope. */
const SCOPES: Record<string, [scope: string, why: string]> = {
  hosts: ['window', 'your hosts, under User in a remote window too; a trusted workspace may list its own'],
  sshConfigFile: ['machine-overridable', 'a path on the machine where the extension runs: under Remote in a remote window'],
  fleets: ['window', 'as hosts'],
  ncclVersion: ['window', 'what your jobs use; a workspace may say its own'],
  ncclEnv: ['window', 'as ncclVersion'],
  ncclTestsDir: ['window', 'a path on the nodes, not on this machine: under User in a remote window; a trusted workspace may say its own'],
  strictHostKeyChecking: ['application', 'a security choice no workspace may lower: user settings only'],
  connectTimeoutSeconds: ['window', 'a preference'],
  probeTimeoutSeconds: ['window', 'a preference'],
  maxConcurrentHosts: ['window', 'a preference'],
};
const SHOWN_UNDER_USER_IN_A_REMOTE_WINDOW = ['application', 'window', 'resource', 'language-overridable'];

describe('package.json: settings', () => {
  it('are titled "GPUDirect RDMA" in the Settings editor', () => {
    assert.equal(configuration.title, 'GPUDirect RDMA');
  });

  it('each setting has its deliberate scope', () => {
    const names = Object.entries(Settings)
      .filter(([k]) => k !== 'section')
      .map(([, v]) => v);
    assert.deepEqual(Object.keys(SCOPES).sort(), [...names].sort());
    for (const [name, [scope, why]] of Object.entries(SCOPES)) assert.equal(props[key(name)].scope, scope, `${name}: ${why}`);
  });

  it('only the SSH config path is missing from the User tab of a remote window, and its description says where it is', () => {
    const hidden = Object.keys(SCOPES).filter((n) => !SHOWN_UNDER_USER_IN_A_REMOTE_WINDOW.includes(props[key(n)].scope));
    assert.deepEqual(hidden, ['sshConfigFile']);
    assert.match(props[key('sshConfigFile')].markdownDescription ?? '', /remote window, set it under \*\*Remote\*\*/);
  });

  it('settings a workspace could set and that decide what runs or where it connects are restricted in untrusted workspaces', () => {
    const restricted: string[] = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const name of ['sshConfigFile', 'hosts', 'fleets', 'strictHostKeyChecking', 'ncclTestsDir'])
      assert.ok(restricted.includes(key(name)), name);
  });

  it('are ordered: what to diagnose, how NCCL is assumed, then connection details', () => {
    const byOrder = Object.entries(props)
      .sort((a, b) => a[1].order - b[1].order)
      .map(([k]) => k.replace(`${Settings.section}.`, ''));
    assert.deepEqual(byOrder, [
      'hosts',
      'sshConfigFile',
      'fleets',
      'ncclVersion',
      'ncclEnv',
      'ncclTestsDir',
      'strictHostKeyChecking',
      'connectTimeoutSeconds',
      'probeTimeoutSeconds',
      'maxConcurrentHosts',
    ]);
    assert.deepEqual(
      Object.values(props)
        .map((p) => p.order)
        .sort((a, b) => a - b),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });

  it('the Fleets description is short; its details are on the fields they describe', () => {
    const fleets = props[key('fleets')];
    assert.ok((fleets.markdownDescription ?? '').length < 250, fleets.markdownDescription);
    for (const field of ['name', 'hosts', 'via', 'with', 'partition']) assert.ok(fleets.items?.properties[field].description, field);
    assert.match(fleets.items?.properties.hosts.description ?? '', /gpu\[01-64\]/);
  });

  it('nvidia-smi topo -m opens with terminal tab stops and without wrapping, so its columns line up', () => {
    assert.deepEqual(manifest.contributes.configurationDefaults['[nvidia-topo]'], {
      'editor.tabSize': 8,
      'editor.detectIndentation': false,
      'editor.wordWrap': 'off',
    });
  });
});
