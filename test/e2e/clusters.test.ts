// The Clusters view in a real VS Code (code-server + chromium, the packaged .vsix), against the lab API
// server (test/lab/kube) that the extension's own kubectl talks to: the kubeconfig's context in the
// sidebar with what the GPU Operator says, a GPU node diagnosed through its driver pod into the same rows
// as a host, and the operator fix planned (the exact kubectl patch shown before anything runs; cancelled,
// so the cluster receives no write).
import * as assert from 'assert';
import * as path from 'path';
import { Lab, startTestLab } from '../lab/lab';
import { KubeLab, startKubeLab, WRITE_METHODS } from '../lab/kube';
import { hostsTree } from './treeRows';
import { Workbench, screenshotFailures } from './workbench';

describe('Clusters in a real VS Code (code-server + chromium + lab API server + kubectl)', function () {
  this.timeout(240_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;
  let kube: KubeLab | undefined;
  const { sidebar, row, setExpanded, inline } = hostsTree(workbench);
  const dialog = () => workbench.tab.locator('.monaco-dialog-box');

  before(async function () {
    this.timeout(300_000);
    lab = await startTestLab({
      hosts: [{ name: 'gpu-k1', profile: 'operator-no-peermem' }],
      recordsPath: '/tmp/gdrlab-e2e-clusters-records.json',
    });
    kube = await startKubeLab(
      lab,
      { nodes: [{ name: 'gpu-k1' }], clusterPolicy: { rdma: { enabled: false } } },
      path.join(lab.dir, 'kube'),
    );
    await workbench.start();
    await workbench.activityBarItem('GPUDirect RDMA').click();
    workbench.updateSettings({ 'gdrDoctor.kube.kubeconfig': kube.kubeconfigPath }, 'machine');
  });
  afterEach(screenshotFailures(workbench, 'clusters-'));
  after(async () => {
    await workbench.dispose();
    await kube?.stop();
    await lab?.stop();
  });

  it('lists the context, the operator state and the GPU node, diagnoses the node and plans the operator fix', async () => {
    const header = sidebar().locator('.pane-header', { hasText: 'Clusters' });
    await header.waitFor();
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    // Clusters starts collapsed under Hosts; with Hosts collapsed it has the sidebar's height (rows out of view are not drawn).
    const hosts = sidebar().locator('.pane-header', { hasText: 'Hosts' });
    if ((await hosts.getAttribute('aria-expanded')) === 'true') await hosts.click();
    await setExpanded(row('lab'), true);
    await row(/^ClusterPolicy cluster-policy: state ready, driver.rdma \{"enabled":false\}/).waitFor({ timeout: 60_000 });
    const node = row('gpu-k1');
    await node.waitFor();
    await workbench.screenshot('clusters-01-context');
    await inline(node, 'Diagnose Node');
    await setExpanded(node, true);
    await setExpanded(row(/^Findings/), true);
    // The finding's short label (its title, 'GPUDirect RDMA is not enabled in the ClusterPolicy', is in its tooltip).
    await row('RDMA off in ClusterPolicy').waitFor({ timeout: 120_000 });
    await workbench.screenshot('clusters-02-diagnosed');
    assert.ok(
      kube?.requests.some((q) => q.method === 'UPGRADE' && /container=nvidia-driver-ctr/.test(q.query)),
      'probed through the driver pod',
    );
    await inline(node, 'Plan Operator Fix…');
    await dialog().waitFor();
    const text = await dialog().innerText();
    assert.ok(text.includes(`patch clusterpolicy/cluster-policy --type merge -p '{"spec":{"driver":{"rdma":{"enabled":true}}}}'`), text);
    await workbench.screenshot('clusters-03-fix-planned');
    await dialog().locator('.monaco-button', { hasText: 'Cancel' }).click();
    assert.deepEqual(
      kube?.requests.filter((q) => WRITE_METHODS.includes(q.method)),
      [],
      'nothing written to the cluster',
    );
  });
});
