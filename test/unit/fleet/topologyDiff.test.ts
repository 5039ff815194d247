// fleet.topology-differs over hosts probed from real `nvidia-smi topo -m` / `numactl -H` outputs:
// most hosts are the DGX-A100 preset (10 NICs, 8 NUMA nodes); the odd one carries the seed box's
// recording (3 NICs, 2 NUMA nodes) or a 4-GPU A100 box's. Expected lines are read off those files.
import * as assert from 'node:assert/strict';
import { TOPOLOGY_DIFFERS, withFleetFindings } from '../../../src/core/fleet/topologyDiff';
import { FleetHostResult } from '../../../src/core/fleet/types';
import { HEALTHY, ids, without } from '../diagnosis/hosts';
import { fixture } from '../diagnosis/hostReport';
import { probed, probedAs, unreachable } from './fleetHosts';

const SEED_BOX = {
  ...HEALTHY,
  topo: fixture('topo/seed-xeon-gold-5318y-8gpu-3nic.txt'),
  numactl: fixture('numactl/seed-xeon-gold-5318y-2node.txt'),
};
const FOUR_GPU = { ...HEALTHY, topo: fixture('topo/a100-sxm4-4gpu-epyc-rocep-nic.txt') };
const H100 = { ...HEALTHY, topo: fixture('topo/h100-hgx-8gpu-nic-legend-spaces.txt') };
const H200 = { ...HEALTHY, topo: fixture('topo/h200-hgx-8gpu-12nic-tabs.txt') };

const names = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `gpu${String(from + i).padStart(2, '0')}`);
const fleetFinding = (r: FleetHostResult) => r.diagnosis?.findings.find((f) => f.id === TOPOLOGY_DIFFERS);

describe('fleet.topology-differs', () => {
  it('flags the one host of 16 whose NICs, links and NUMA nodes differ, and only it', async () => {
    const results = [...(await probedAs(names(1, 15), HEALTHY)), await probed('gpu16', SEED_BOX)];
    const out = withFleetFindings(results);
    for (let i = 0; i < 15; i++) assert.equal(out[i], results[i], `${out[i].host} is left as it was`);
    const f = fleetFinding(out[15]);
    assert.ok(f, 'gpu16 is flagged');
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.fixes, []);
    assert.match(f.source, /nvidia-smi topo -m/);
    for (const nic of [3, 4, 5, 6, 7, 8, 9])
      assert.ok(f.evidence.includes(`nvidia-smi topo -m: NIC mlx5_${nic} missing (present on 15 of 16 hosts)`), `mlx5_${nic}`);
    // DGX-A100: GPU0 is PXB to NIC0/NIC1 and SYS to NIC2; the seed box: NODE, NODE, PXB.
    assert.ok(f.evidence.includes('nvidia-smi topo -m: GPU0–mlx5_0 is NODE here, PXB on 15 of 16 hosts'));
    assert.ok(f.evidence.includes('nvidia-smi topo -m: GPU0–mlx5_2 is PXB here, SYS on 15 of 16 hosts'));
    assert.ok(f.evidence.includes('nvidia-smi topo -m: GPU3–mlx5_2 is PIX here, PXB on 15 of 16 hosts'));
    assert.ok(f.evidence.includes('numactl -H: 2 NUMA nodes here, 8 on 15 of 16 hosts'));
    // Equal on both: GPU2–mlx5_2 PXB, GPU4..7 SYS to every NIC, 8 GPUs.
    assert.ok(!f.evidence.some((l) => l.includes('GPU2–mlx5_2') || l.includes('GPU4') || l.includes('GPUs here')), f.evidence.join('\n'));
    assert.equal(f.evidence.length, 7 + 11 + 1, f.evidence.join('\n'));
    assert.equal(out[15].status, 'findings');
    const severities = out[15].diagnosis?.findings.map((x) => x.severity) ?? [];
    assert.deepEqual(
      severities,
      [...severities].sort((a, b) => ['error', 'warning', 'info'].indexOf(a) - ['error', 'warning', 'info'].indexOf(b)),
    );
  });

  it('names a different GPU count', async () => {
    const results = [...(await probedAs(names(1, 3), HEALTHY)), await probed('gpu04', FOUR_GPU)];
    const f = fleetFinding(withFleetFindings(results)[3]);
    assert.ok(f);
    assert.ok(f.evidence.includes('nvidia-smi topo -m: 4 GPUs here, 8 on 3 of 4 hosts'), f.evidence.join('\n'));
  });

  it("recomputes an ok host's status from its probe once flagged", async () => {
    const majority = await probedAs(names(1, 3), without(HEALTHY, 'numactl'));
    const odd = await probed('gpu04', HEALTHY);
    assert.equal(odd.status, 'ok');
    const out = withFleetFindings([...majority, odd]);
    assert.equal(out[3].status, 'findings');
    assert.deepEqual(fleetFinding(out[3])?.evidence, ['numactl -H: 8 NUMA nodes here, (not read) on 3 of 4 hosts']);
  });

  it('compares only hosts whose topology was read: unreachable and topo-less hosts do not count', async () => {
    const results = [
      ...(await probedAs(names(1, 3), HEALTHY)),
      await probed('gpu04', SEED_BOX),
      ...(await probedAs(names(5, 7), without(HEALTHY, 'topo'))),
      unreachable('gpu08', { code: 'ECONNREFUSED' }),
    ];
    const out = withFleetFindings(results);
    assert.deepEqual(
      out.filter(fleetFinding).map((r) => r.host),
      ['gpu04'],
    );
    assert.ok(fleetFinding(out[3])?.evidence.includes('nvidia-smi topo -m: NIC mlx5_9 missing (present on 3 of 4 hosts)'));
    assert.equal(out[7], results[7]);
  });

  it('says nothing without a clear majority: every host different, a 2–2 split, fewer than 3 hosts read', async () => {
    const each = [await probed('a', HEALTHY), await probed('b', SEED_BOX), await probed('c', H100), await probed('d', H200)];
    const split = [...(await probedAs(['a', 'b'], HEALTHY)), ...(await probedAs(['c', 'd'], SEED_BOX))];
    const few = [await probed('a', HEALTHY), await probed('b', SEED_BOX), ...(await probedAs(['c', 'd', 'e'], without(HEALTHY, 'topo')))];
    for (const results of [each, split, few]) {
      const out = withFleetFindings(results);
      assert.deepEqual(
        out.filter(fleetFinding).map((r) => r.host),
        [],
      );
      out.forEach((r, i) => assert.equal(r, results[i]));
    }
  });

  it('adds the finding once however often the fleet is compared, and drops it when the host no longer differs', async () => {
    const results = [...(await probedAs(names(1, 3), HEALTHY)), await probed('gpu04', SEED_BOX)];
    const twice = withFleetFindings(withFleetFindings(results));
    assert.equal(ids(twice[3].diagnosis?.findings ?? []).filter((id) => id === TOPOLOGY_DIFFERS).length, 1);
    const healed = withFleetFindings([
      ...twice.slice(0, 3),
      { ...twice[3], report: results[0].report, diagnosis: { ...results[0].diagnosis!, findings: twice[3].diagnosis!.findings } },
    ]);
    assert.equal(fleetFinding(healed[3]), undefined);
  });
});
