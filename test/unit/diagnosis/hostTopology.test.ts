// Where `nvidia-smi topo -m` is missing but the sysfs PCI tree was read (lab profile pxn-port-down's tree,
// labSysfs.ts): each GPU's NIC distance is derived from the tree and says so in the CLI report; and one
// place decides which ports NCCL_IB_HCA may name, per GPU as for the whole host.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { diagnose, pathLabel } from '../../../src/core/diagnosis';
import { formatProbeReport } from '../../../src/cli/diagnoseReport';
import { CLI } from '../../support/paths';
import { labSysfsText } from '../topology/pcie/labSysfs';
import { HostFiles, hostReport, labFile } from './hostReport';

const PXN_FILES: HostFiles = {
  'pci-sysfs': labSysfsText('pxn-port-down'),
  'smi-q': labFile('healthy', 'out/nvidia-smi_-q.stdout'),
  numactl: labFile('healthy', 'out/numactl_-H.stdout'),
};

describe('NIC distances derived from the PCI tree when nvidia-smi topo -m is missing', () => {
  it("each GPU's link is the distance nvidia-smi would print, marked derived; NUMA nodes from sysfs", async () => {
    const d = diagnose(await hostReport({ ...PXN_FILES, topo: { stderr: 'nvidia-smi: topo not supported\n', rc: 3 } }));
    const gpu0 = d.pairs.find((p) => p.gpu === 'GPU0');
    assert.deepEqual([gpu0?.link, gpu0?.linkDerived, gpu0?.numaNode], ['PIX', true, '0']);
    assert.equal(gpu0 && pathLabel(gpu0), 'PIX, derived');
    assert.equal(d.pairs.find((p) => p.gpu === 'GPU5')?.numaNode, '1');
  });

  it('the CLI report says the distances are derived, once for the host and beside each GPU', async () => {
    const report = await hostReport(PXN_FILES);
    const text = formatProbeReport(report, diagnose(report));
    assert.match(
      text,
      /GPU↔NIC verdicts for NCCL [\d.]+ \(topology from sysfs, as NCCL reads it; distances derived from the sysfs PCI tree, nvidia-smi topo -m not read;/,
    );
    assert.match(text, /GPU0: mlx5_0:1 \(PIX, derived\)/);
  });

  it('with topo -m read, nothing is marked derived', async () => {
    const d = diagnose(await hostReport({ ...PXN_FILES, topo: labFile('pxn-port-down', 'out/nvidia-smi_topo_-m.stdout') }));
    assert.ok(d.pairs.length === 8 && d.pairs.every((p) => !p.linkDerived));
  });

  it('gdr-doctor diagnose --from a folder without topo.txt prints derived distances', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-derived-'));
    for (const [id, text] of Object.entries(PXN_FILES)) fs.writeFileSync(path.join(dir, `${id}.txt`), text as string);
    const r = spawnSync(process.execPath, [CLI, 'diagnose', '--from', dir], { encoding: 'utf8' });
    fs.rmSync(dir, { recursive: true });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /GPU3: mlx5_3:1 \(PIX, derived\)/);
  });
});

describe('NCCL_IB_HCA per GPU and for the whole host', () => {
  it("pxn-port-down (mlx5_1 DOWN): no GPU's value names the port rdma.port-down calls down, and each is part of the host's", async () => {
    const d = diagnose(await hostReport({ ...PXN_FILES, topo: labFile('pxn-port-down', 'out/nvidia-smi_topo_-m.stdout') }));
    const down = d.findings.find((f) => f.id === 'rdma.port-down');
    assert.match(down?.title ?? '', /mlx5_1\b/);
    const host = (d.suggestedEnv.env.NCCL_IB_HCA ?? '').replace(/^=/, '').split(',');
    assert.ok(!host.some((e) => e.startsWith('mlx5_1:')));
    for (const p of d.pairs) {
      const own = (p.ncclIbHca ?? '').replace(/^=/, '').split(',');
      assert.ok(
        own.every((e) => host.includes(e)),
        `${p.gpu}: ${p.ncclIbHca} not within ${d.suggestedEnv.env.NCCL_IB_HCA}`,
      );
      assert.ok(!own.some((e) => e.startsWith('mlx5_1:')), `${p.gpu}: ${p.ncclIbHca}`);
    }
    assert.equal(d.pairs.find((p) => p.gpu === 'GPU1')?.ncclIbHca?.split(',')[0], '=mlx5_0:1');
  });
});
