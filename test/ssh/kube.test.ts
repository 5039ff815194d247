// `gdr-doctor diagnose --kube` end to end: the built CLI runs the real kubectl 1.32 against the lab API
// server (test/lab/kube: TLS, discovery, lists, logs, exec and attach over WebSocket), whose execs land in
// simulated GPU hosts over real ssh, so the probe meets the same hardware as over SSH.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { until } from '../support/until';
import { Lab, startTestLab } from '../lab/lab';
import { KubeLab, kubectlProcesses, kubeEnv, startKubeLab, WRITE_METHODS } from '../lab/kube';

type Finding = { id: string; severity: string; evidence: string[]; fixes: string[] };
type Host = { host: string; status: string; report?: { findings: Finding[] }; error?: { step: string; message: string } };

describe('gdr-doctor diagnose --kube (lab API server, real kubectl)', function () {
  this.timeout(240_000);
  let lab: Lab;
  const kubes: KubeLab[] = [];
  const kube = async (name: string, spec: Parameters<typeof startKubeLab>[1]) => {
    const k = await startKubeLab(lab, spec, path.join(lab.dir, name));
    kubes.push(k);
    return k;
  };
  const diagnose = (k: KubeLab, args: string[]) =>
    runCli(['diagnose', '--kube', '--json', ...args], kubeEnv(path.dirname(k.kubeconfigPath), k.kubeconfigPath));
  const hosts = (stdout: string): Host[] => JSON.parse(stdout).hosts;
  const findings = (h: Host): Finding[] => h.report?.findings ?? [];
  const ids = (h: Host) => findings(h).map((f) => f.id);

  before(async () => {
    lab = await startTestLab({
      hosts: [
        { name: 'gpu-ok1', profile: 'operator-healthy' },
        { name: 'gpu-ok2', profile: 'operator-healthy' },
        { name: 'gpu-crash', profile: 'operator-peermem-crash' },
        { name: 'gpu-nordma', profile: 'operator-no-peermem' },
        { name: 'gpu-plain', profile: 'healthy' },
        { name: 'gpu-hang', profile: 'operator-healthy' },
      ],
      recordsPath: '/tmp/gdrlab-kube-records.json',
    });
  });
  after(async () => {
    for (const k of kubes) await k.stop();
    await lab?.stop();
  });

  it('diagnoses every GPU node of a healthy operator cluster through the driver pods, reading only', async () => {
    const k = await kube('healthy', {
      nodes: [
        { name: 'gpu-ok1', mofed: 'ready', validator: 'ok' },
        { name: 'gpu-ok2', mofed: 'ready', validator: 'ok' },
        { name: 'cpu-1', host: 'gpu-plain', gpus: 0 },
      ],
      clusterPolicy: { rdma: { enabled: true } },
      nicClusterPolicy: true,
    });
    const r = await diagnose(k, []);
    assert.equal(r.status, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(doc.hosts.map((h: Host) => h.host).sort(), ['gpu-ok1', 'gpu-ok2'], 'the CPU node is not a GPU node');
    for (const h of doc.hosts as Host[]) {
      // The healthy profile's own warnings (its NICs are far from the GPUs), as over SSH; no error, nothing from the operators.
      assert.deepEqual(
        findings(h).filter((f) => f.severity === 'error'),
        [],
        `${h.host}: ${ids(h).join(', ')}`,
      );
      assert.ok(ids(h).includes('driver.operator-managed'), ids(h).join(', '));
      assert.ok(!ids(h).some((id) => id.startsWith('operator.') && id !== 'operator.kernel-module-type'), ids(h).join(', '));
    }
    assert.equal(doc.cluster.clusterPolicy.name, 'cluster-policy');
    assert.equal(doc.cluster.clusterPolicy.rdmaEnabled, true);
    const execs = k.requests.filter((q) => q.method === 'UPGRADE');
    assert.equal(execs.length, 2);
    for (const e of execs) {
      assert.match(e.path, /\/namespaces\/gpu-operator\/pods\/nvidia-driver-daemonset-[a-f0-9]+\/exec$/);
      assert.match(e.query, /container=nvidia-driver-ctr/);
      assert.match(
        decodeURIComponent(e.query),
        /command=nsenter&command=-t&command=1&command=-m&command=-u&command=-i&command=-n&command=-p&command=--&command=sh&command=-s/,
      );
    }
    assert.deepEqual(
      k.requests.filter((q) => WRITE_METHODS.includes(q.method)),
      [],
      'diagnosing writes nothing',
    );
  });

  it('quotes a crash-looping peermem sidecar and offers the driver pod restart, never modprobe', async () => {
    const k = await kube('crash', {
      nodes: [{ name: 'gpu-crash', validator: 'ok' }],
      clusterPolicy: { rdma: { enabled: true, useHostMofed: true } },
    });
    const r = await diagnose(k, ['gpu-crash']);
    assert.equal(r.status, 0, r.stderr);
    const [h] = hosts(r.stdout);
    const crash = findings(h).find((f) => f.id === 'operator.peermem-crashloop');
    assert.ok(crash, ids(h).join(', '));
    assert.equal(crash.severity, 'error');
    assert.deepEqual(crash.fixes, ['restart-driver-pod']);
    assert.ok(
      crash.evidence.some((e) => e.includes('nvidia-peermem-ctr: waiting CrashLoopBackOff')),
      crash.evidence.join('\n'),
    );
    assert.ok(
      crash.evidence.some((e) => e.includes("--previous --tail=20: modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument")),
      crash.evidence.join('\n'),
    );
    assert.ok(
      !findings(h).some((f) => f.fixes.includes('load-peermem') || f.fixes.includes('persist-peermem')),
      'host module fixes withheld',
    );
  });

  it('says RDMA is off in the ClusterPolicy where the node has RDMA NICs and no dma-buf', async () => {
    const k = await kube('nordma', { nodes: [{ name: 'gpu-nordma' }], clusterPolicy: { rdma: { enabled: false } } });
    const r = await diagnose(k, []);
    assert.equal(r.status, 0, r.stderr);
    const [h] = hosts(r.stdout);
    const off = findings(h).find((f) => f.id === 'operator.rdma-disabled');
    assert.ok(off, ids(h).join(', '));
    assert.equal(off.severity, 'error');
    assert.deepEqual(off.fixes, ['enable-rdma']);
    assert.ok(off.evidence[0].endsWith('spec.driver.rdma = {"enabled":false}'), off.evidence.join('\n'));
  });

  it('reaches a node without a driver pod through a debug pod only when allowed, and deletes it', async () => {
    const k = await kube('debug', { nodes: [{ name: 'gpu-plain', driverPod: false }], clusterPolicy: {} });
    const refused = await diagnose(k, []);
    assert.equal(refused.status, 3);
    const [r0] = hosts(refused.stdout);
    assert.equal(r0.status, 'unreachable');
    assert.match(r0.error?.message ?? '', /--debug-image IMAGE/);
    assert.deepEqual(
      k.requests.filter((q) => WRITE_METHODS.includes(q.method)),
      [],
      'refused: no pod created',
    );
    const r = await diagnose(k, ['--debug-image', 'docker.io/library/busybox:1.36']);
    assert.equal(r.status, 0, r.stderr);
    const [h] = hosts(r.stdout);
    assert.ok(ids(h).includes('operator.no-driver-pod'), ids(h).join(', '));
    const posted = k.requests.filter((q) => q.method === 'POST');
    assert.equal(posted.length, 1);
    assert.ok(k.requests.some((q) => q.method === 'UPGRADE' && /\/pods\/node-debugger-gpu-plain-[a-z0-9]+\/attach$/.test(q.path)));
    assert.ok(
      k.requests.some((q) => q.method === 'DELETE' && /\/pods\/node-debugger-gpu-plain-/.test(q.path)),
      'the debug pod is deleted',
    );
    assert.deepEqual(
      k.state.pods.filter((p) => String((p.metadata as { name: string }).name).startsWith('node-debugger')),
      [],
    );
  });

  it('stops a hung exec at its deadline and leaves no kubectl running', async () => {
    const k = await kube('hang', { nodes: [{ name: 'gpu-hang' }], clusterPolicy: { rdma: { enabled: true } } });
    lab.host('gpu-hang').setFault('nvidia-smi', 'hang', 600);
    try {
      const r = await diagnose(k, ['--timeout', '6']);
      assert.equal(r.status, 3, r.stderr);
      const [h] = hosts(r.stdout);
      assert.equal(h.status, 'timed-out');
      await until('no kubectl of this lab left', () => kubectlProcesses(k.kubeconfigPath).length === 0, 15_000);
      await until('the exec stream closed', () => k.openStreams() === 0, 15_000);
    } finally {
      lab.host('gpu-hang').clearFaults();
    }
  });

  it("shows kubectl's own error for an expired credential", async () => {
    const k = await kube('expired', { nodes: [{ name: 'gpu-ok1' }], clusterPolicy: {} });
    const expired = k.writeKubeconfig(path.join(path.dirname(k.kubeconfigPath), 'expired-kubeconfig'), { token: 'expired-token' });
    const r = await runCli(['diagnose', '--kube', '--kubeconfig', expired], kubeEnv(path.dirname(expired), ''));
    assert.equal(r.status, 3);
    assert.match(r.stderr, /^gdr-doctor: kubectl: error: You must be logged in to the server \(.+\)$/m);
  });
});
