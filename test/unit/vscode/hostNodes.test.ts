import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, DemoHost } from '../../../src/core/transport/demo';
import { offlineRunner } from '../../../src/core/transport/saved';
import { runProbe } from '../../../src/core/probe/runProbe';
import { formatProbeReport } from '../../../src/cli/diagnoseReport';
import { DEMO_HOST, HostModel } from '../../../src/vscode/hosts/hostModel';
import { childNodes, rootNodes } from '../../../src/vscode/tree/hostNodes';
import type { HostsNode } from '../../../src/vscode/tree/nodes';
import { hostReport } from '../diagnosis/hostReport';
import { constructedSysfs, pciSysfsText } from '../topology/nccl/constructedSysfs';
import { DEMO_DIR } from '../../support/paths';

async function demoModel(): Promise<HostModel> {
  const model = new HostModel({ configHosts: () => [], addedHosts: () => [] });
  model.openDemo();
  const report = await runProbe(new DemoHost(DEMO_DIR).runner(), { host: DEMO_HOST_NAME });
  model.setOutcome(DEMO_HOST.id, { kind: 'diagnosed', report, diagnosis: diagnose(report), finishedAt: new Date() });
  return model;
}

const group = (model: HostModel, g: string): HostsNode[] => {
  const host = rootNodes(model)[0];
  const node = childNodes(host, model).find((n) => n.kind === 'group' && n.group === g);
  assert.ok(node, g);
  return childNodes(node, model);
};

describe('Hosts tree nodes', () => {
  it('shows a host never diagnosed as such, with no groups', () => {
    const model = new HostModel({ configHosts: () => ['gpu-a'], addedHosts: () => [] });
    const [host] = rootNodes(model);
    const children = childNodes(host, model);
    assert.deepEqual(
      children.map((c) => [c.kind, c.kind === 'status' ? c.label : '']),
      [['status', 'Not diagnosed yet']],
    );
  });

  it('expands a diagnosed demo host into status, then the six groups', async () => {
    const model = await demoModel();
    const children = childNodes(rootNodes(model)[0], model);
    assert.equal(children[0].kind, 'status');
    assert.match(children[0].kind === 'status' ? children[0].label : '', /^Diagnosed .* in \d/);
    assert.deepEqual(
      children.slice(1).map((c) => (c.kind === 'group' ? c.group : c.kind)),
      ['findings', 'gpus', 'nics', 'numa', 'modules', 'raw'],
    );
  });

  it('lists findings errors first, GPUs with nearest NIC and verdict, NIC ports, NUMA nodes, raw outputs', async () => {
    const model = await demoModel();
    const findings = group(model, 'findings').map((n) => (n.kind === 'finding' ? n.finding : undefined));
    assert.deepEqual(
      findings.map((f) => f?.id),
      ['peermem.not-loaded', 'rdma.port-down', 'peermem.not-persistent', 'pcie.acs-unread'],
    );
    const ranks = findings.map((f) => ({ error: 0, warning: 1, info: 2 })[f?.severity ?? 'info']);
    assert.deepEqual(ranks, [...ranks].sort());
    const gpu0 = group(model, 'gpus').find((n) => n.kind === 'gpu' && n.label === 'GPU0');
    // The verdict first: a sidebar at its default width cuts the end of the row, not the verdict.
    assert.equal(
      gpu0?.kind === 'gpu' ? gpu0.description : '',
      'GDR no · mlx5_0, mlx5_2 +1 (PIX → NCCL PHB) · NUMA 0 · NVIDIA H100 80GB HBM3 · 00000000:18:00.0',
    );
    const nics = group(model, 'nics');
    assert.deepEqual(
      nics.map((n) => (n.kind === 'nic' ? n.label : '')),
      ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_4', 'mlx5_5', 'mlx5_6', 'mlx5_7'],
    );
    const ports = childNodes(nics[1], model).map((p) => (p.kind === 'row' ? p.description : ''));
    assert.match(ports[0], /^DOWN/);
    assert.equal(group(model, 'numa').length, 2);
    const raw = group(model, 'raw').find((n) => n.kind === 'raw' && n.commandId === 'topo');
    assert.equal(raw?.kind === 'raw' ? raw.description : '', 'ok');
    // Titled with the command, not the probe's id.
    assert.equal(raw?.kind === 'raw' ? raw.label : '', 'nvidia-smi topo -m');
  });

  it('a finished diagnosis is a neutral status row: reaching a host says nothing about GDR', async () => {
    const model = await demoModel();
    const status = childNodes(rootNodes(model)[0], model)[0];
    assert.equal(status.kind === 'status' ? status.tone : '', 'done');
    assert.doesNotMatch(status.kind === 'status' ? status.tooltip : '', /Reachable/);
  });

  it('lists the NICs and port states sysfs shows when ibv_devinfo is missing', async () => {
    const root = '/sys/devices/pci0000:00/0000:00:01.0';
    const sysfs = constructedSysfs(
      [{ path: `${root}/0000:01:00.0` }],
      [
        { name: 'mlx5_0', path: `${root}/0000:02:00.0`, ports: [{}] },
        { name: 'mlx5_1', path: `${root}/0000:03:00.0`, ports: [{ state: 'DOWN', linkLayer: 'Ethernet', rate: '100 Gb/sec (2X HDR)' }] },
      ],
    );
    const report = await hostReport({ 'pci-sysfs': pciSysfsText(sysfs), ibv: { stderr: 'sh: 1: ibv_devinfo: not found\n', rc: 127 } });
    const model = new HostModel({ configHosts: () => ['gpu-a'], addedHosts: () => [] });
    const [host] = rootNodes(model);
    model.setOutcome(host.hostId, { kind: 'diagnosed', report, diagnosis: diagnose(report), finishedAt: new Date() });
    const groupNode = childNodes(host, model).find((n) => n.kind === 'group' && n.group === 'nics');
    assert.equal(groupNode?.kind === 'group' ? groupNode.description : '', '2');
    const nics = childNodes(groupNode as HostsNode, model);
    assert.deepEqual(
      nics.map((n) => (n.kind === 'nic' ? [n.label, n.description] : [])),
      [
        ['mlx5_0', '1 port(s), 1 active'],
        ['mlx5_1', '1 port(s), 0 active'],
      ],
    );
    const ports = childNodes(nics[1], model).map((p) => (p.kind === 'row' ? [p.description, p.tone] : []));
    assert.deepEqual(ports, [['DOWN · 100 Gb/s · Ethernet', 'warning']]);
  });

  it('shows knock-on findings under their cause: a real machine without GPUs has one finding at the top', async () => {
    const report = await runProbe(offlineRunner(path.join(__dirname, '../../probes/debian12-vm-no-gpu')), { host: 'debian12-vm' });
    const model = new HostModel({ configHosts: () => ['debian12-vm'], addedHosts: () => [] });
    const [host] = rootNodes(model);
    model.setOutcome(host.hostId, { kind: 'diagnosed', report, diagnosis: diagnose(report), finishedAt: new Date() });
    const findings = group(model, 'findings');
    assert.deepEqual(
      findings.map((n) => (n.kind === 'finding' ? n.finding.id : n.kind)),
      ['gpu.none'],
    );
    const under = childNodes(findings[0], model);
    assert.equal(under.length, 8);
    for (const n of under)
      assert.ok(n.kind === 'finding' && n.finding.causedBy === 'gpu.none' && n.id.startsWith(`${findings[0].id}/`), n.id);
    assert.deepEqual(childNodes(under[0], model), []);
  });

  it('says a command whose output went over the cap was truncated, as the CLI report does', async () => {
    const model = await demoModel();
    const last = model.status(DEMO_HOST.id).lastDiagnosed;
    assert.ok(last);
    const report = { ...last.report, commands: last.report.commands.map((c) => (c.id === 'lscpu' ? { ...c, truncated: true } : c)) };
    model.setOutcome(DEMO_HOST.id, { ...last, report });
    const raw = group(model, 'raw').find((n) => n.kind === 'raw' && n.commandId === 'lscpu');
    assert.equal(raw?.kind === 'raw' ? raw.description : '', 'truncated');
    assert.match(formatProbeReport(report, last.diagnosis), /^ {2}truncated +lscpu /m);
  });
});
