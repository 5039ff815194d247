// `gdr-doctor fix --kube`: the operator-correct fixes through real kubectl against the lab API server,
// whose simulated operator rolls or restarts the driver pod and runs the sidecar's modprobe in the
// node's lab host, so the verification (sidecar Running, nvidia_peermem live) meets real state.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { Lab, startTestLab } from '../lab/lab';
import { KubeLab, kubeEnv, startKubeLab, WRITE_METHODS } from '../lab/kube';

describe('gdr-doctor fix --kube (lab API server, real kubectl)', function () {
  this.timeout(240_000);
  let lab: Lab;
  const kubes: KubeLab[] = [];
  const audit = () => path.join(lab.dir, 'audit.log');
  const fix = (k: KubeLab, args: string[]) =>
    runCli(['fix', '--kube', ...args], { ...kubeEnv(path.dirname(k.kubeconfigPath), k.kubeconfigPath), GDR_DOCTOR_AUDIT_LOG: audit() });
  const writes = (k: KubeLab) => k.requests.filter((q) => WRITE_METHODS.includes(q.method));

  before(async () => {
    lab = await startTestLab({
      hosts: [
        { name: 'gpu-nordma', profile: 'operator-no-peermem' },
        { name: 'gpu-crash', profile: 'operator-peermem-crash' },
      ],
      recordsPath: '/tmp/gdrlab-kubefix-records.json',
    });
    kubes.push(
      await startKubeLab(
        lab,
        { nodes: [{ name: 'gpu-nordma' }], clusterPolicy: { rdma: { enabled: false } } },
        path.join(lab.dir, 'k-nordma'),
      ),
    );
    kubes.push(
      await startKubeLab(
        lab,
        { nodes: [{ name: 'gpu-crash' }], clusterPolicy: { rdma: { enabled: true, useHostMofed: true } } },
        path.join(lab.dir, 'k-crash'),
      ),
    );
  });
  after(async () => {
    for (const k of kubes) await k.stop();
    await lab?.stop();
  });

  it('enable-rdma: shows the exact patch, sends nothing without a yes, then patches, waits for the sidecar and finds nvidia_peermem live', async () => {
    const k = kubes[0];
    const dry = await fix(k, ['gpu-nordma', 'enable-rdma', '--dry-run']);
    assert.equal(dry.status, 0, dry.stderr);
    assert.ok(
      dry.stdout.includes(`kubectl patch clusterpolicy/cluster-policy --type merge -p '{"spec":{"driver":{"rdma":{"enabled":true}}}}'`),
      dry.stdout,
    );
    const unasked = await fix(k, ['gpu-nordma', 'enable-rdma']);
    assert.equal(unasked.status, 64, 'no terminal, no --yes');
    assert.deepEqual(writes(k), []);
    const r = await fix(k, ['gpu-nordma', 'enable-rdma', '--yes', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const { result } = JSON.parse(r.stdout);
    assert.equal(result.status, 'applied');
    assert.match(result.verification.join('\n'), /nvidia-peermem-ctr Running[\s\S]*nvidia_peermem is live/);
    assert.deepEqual(
      writes(k).map((q) => `${q.method} ${q.path}`),
      ['PATCH /apis/nvidia.com/v1/clusterpolicies/cluster-policy'],
    );
    const logged = fs
      .readFileSync(audit(), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(logged.some((e) => e.fix === 'enable-rdma' && e.host === 'gpu-nordma' && e.status === 'applied'));
    const again = await fix(k, ['gpu-nordma', 'enable-rdma', '--yes']);
    assert.equal(again.status, 0);
    assert.match(again.stdout, /nothing to do: ClusterPolicy cluster-policy already has driver.rdma.enabled/);
  });

  it('restart-driver-pod: deletes the crash-looping driver pod and verifies the new one loaded nvidia_peermem', async () => {
    const k = kubes[1];
    const before = k.state.pods.map((p) => (p.metadata as { name: string }).name);
    const r = await fix(k, ['gpu-crash', 'restart-driver-pod', '--yes']);
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.ok(r.stdout.includes(`kubectl delete pod -n gpu-operator ${before[0]}`), r.stdout);
    assert.match(r.stdout, /Result: applied/);
    assert.ok(!k.state.pods.some((p) => (p.metadata as { name: string }).name === before[0]), 'the old driver pod is gone');
    const crash = JSON.parse(
      (await runCli(['diagnose', '--kube', '--json'], kubeEnv(path.dirname(k.kubeconfigPath), k.kubeconfigPath))).stdout,
    );
    const ids = crash.hosts[0].report.findings.map((f: { id: string }) => f.id);
    assert.ok(!ids.includes('operator.peermem-crashloop'), ids.join(', '));
  });

  it('refuses what does not apply: no driver pod on the node, a node not in the cluster', async () => {
    const k = await startKubeLab(
      lab,
      { nodes: [{ name: 'gpu-nordma', driverPod: false }], clusterPolicy: {} },
      path.join(lab.dir, 'k-nopod'),
    );
    kubes.push(k);
    const r = await fix(k, ['gpu-nordma', 'restart-driver-pod', '--yes']);
    assert.equal(r.status, 4);
    assert.match(r.stdout, /refused: no GPU Operator driver pod runs on gpu-nordma/);
    const none = await fix(k, ['gpu-x', 'enable-rdma', '--yes']);
    assert.equal(none.status, 3);
    assert.match(none.stderr, /no such node in the cluster: gpu-x/);
    assert.deepEqual(writes(k), []);
  });
});
