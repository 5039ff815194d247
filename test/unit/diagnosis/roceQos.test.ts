// roce.traffic-class with the NICs' own QoS (mlnx_qos -i, framed per port by the probe's roce-qos command): the
// priority NCCL's traffic class lands on and the PFC priorities, as facts; never a warning.
import * as assert from 'node:assert/strict';
import { diagnose } from '../../../src/core/diagnosis';
import { Finding } from '../../../src/core/diagnosis/finding';
import { fixture, hostReport } from './hostReport';
import { HEALTHY, only } from './hosts';
import { pcieHost } from './pcieHost';

const CHRYSALIS = { ...HEALTHY, ibv: fixture('ibv/mlx5-chrysalis-cx6-ib-2x-cx5-roce-verbose-3dev.txt') };
const qosOf = (file: string) => fixture(`mlnx-qos/${file}`);
/** The probe's roce-qos output for the Chrysalis node's two RoCE ports, each answering with a real mlnx_qos output. */
const framed = (one: string, two: string, tclass = '') =>
  `==> mlx5_1 1 enp65s0f0 <==\n${tclass}${one}\n==> mlx5_2 1 enp65s0f1 <==\n${two}\n`;

async function trafficClass(roceQos: string | undefined, env: Record<string, string> = {}): Promise<Finding> {
  const report = await hostReport(roceQos === undefined ? CHRYSALIS : { ...CHRYSALIS, 'roce-qos': roceQos });
  const d = diagnose(report, { version: { major: 2, minor: 21, patch: 5 }, env });
  assert.ok(d.findings.every((f) => f.severity === 'info' || !f.id.startsWith('roce.')));
  return only(d.findings, 'roce.traffic-class');
}

describe('roce.traffic-class: what the NICs show (mlnx_qos)', () => {
  it('NCCL_IB_TC=106 → DSCP 26 → priority 3, where PFC is on: said as a fact, information only', async () => {
    const dscp = qosOf('netarbiter-eth4-dscp-pfc3.txt');
    const f = await trafficClass(framed(dscp, dscp), { NCCL_IB_TC: '106' });
    assert.equal(f.severity, 'info');
    assert.match(f.detail, /mlx5_1:1 \(enp65s0f0\): trust dscp, NCCL_IB_TC=106 → DSCP 26 → priority 3; PFC on priority 3; mlx5_2:1/);
    assert.match(f.detail, /en_dcbnl\.c/);
    assert.ok(!/not read/.test(f.detail), f.detail);
    assert.ok(f.evidence.includes('mlnx_qos -i enp65s0f0: prio:3 dscp:…26…'), f.evidence.join('\n'));
    assert.ok(f.evidence.includes('mlnx_qos -i enp65s0f0: PFC enabled on priority 3'));
  });

  it('NCCL_IB_TC unset → DSCP 0 → priority 0, which has no PFC here; a remapped DSCP 30 lands on priority 6', async () => {
    const dscp = qosOf('netarbiter-eth4-dscp-pfc3.txt');
    const unset = await trafficClass(framed(dscp, dscp));
    assert.match(unset.detail, /trust dscp, traffic class 0 → DSCP 0 → priority 0; priority 0 has no PFC here \(PFC on 3\)/);
    const remapped = await trafficClass(framed(qosOf('ens14f0-dscp-30-moved-to-prio6-buffer-row.txt'), dscp), { NCCL_IB_TC: '120' });
    assert.match(
      remapped.detail,
      /\(enp65s0f0\): trust dscp, NCCL_IB_TC=120 → DSCP 30 → priority 6; priority 6 has no PFC here \(PFC on 3\)/,
    );
    assert.match(remapped.detail, /\(enp65s0f1\): trust dscp, NCCL_IB_TC=120 → DSCP 30 → priority 3; PFC on priority 3/);
  });

  it("the device's own traffic class (MLNX_OFED tc/1/traffic_class) is the one looked up", async () => {
    const dscp = qosOf('netarbiter-eth4-dscp-pfc3.txt');
    const f = await trafficClass(framed(dscp, dscp, '# tc/1/traffic_class: Global tclass=106\n'), { NCCL_IB_TC: '0' });
    assert.match(
      f.detail,
      /mlx5_1:1 \(enp65s0f0\): trust dscp, the device's traffic class 106 \(tc\/1\/traffic_class, in place of NCCL_IB_TC\) → DSCP 26 → priority 3/,
    );
    assert.match(f.detail, /mlx5_2:1 \(enp65s0f1\): trust dscp, NCCL_IB_TC=0 → DSCP 0 → priority 0; priority 0 has no PFC here/);
    assert.ok(f.evidence.includes('/sys/class/infiniband/mlx5_1/tc/1/traffic_class: Global tclass=106'));
  });

  it('trust pcp: the priority comes from the VLAN tag, not judged; PFC on no priority is said as such', async () => {
    const f = await trafficClass(framed(qosOf('centos12-ens6-pcp-no-pfc.txt'), qosOf('ens14f0-pcp-pfc3-buffer-row.txt')));
    assert.match(
      f.detail,
      /\(enp65s0f0\): trust pcp, the priority comes from the VLAN tag \(PCP\), not the traffic class; no priority has PFC here/,
    );
    assert.match(f.detail, /\(enp65s0f1\): trust pcp, .*; PFC on priority 3\./);
  });

  it('not read: mlnx_qos missing, an error instead of QoS (quoted in the evidence), a port without output, not collected', async () => {
    assert.match((await trafficClass('mlnx_qos: not installed\n')).detail, /were not read \(mlnx_qos is not installed\)/);
    assert.match((await trafficClass(undefined)).detail, /were not read \(the probe did not collect them\)/);
    const err = await trafficClass(
      `==> mlx5_1 1 enp65s0f0 <==\nNetlink error: Operation not permitted\n==> mlx5_2 1 enp65s0f1 <==\n${qosOf('netarbiter-eth4-dscp-pfc3.txt')}`,
    );
    assert.match(
      err.detail,
      /mlx5_2:1 \(enp65s0f1\): trust dscp.* Not read: mlnx_qos -i enp65s0f0 showed no QoS \(its output is in the evidence\)\.$/,
    );
    assert.ok(err.evidence.includes('mlnx_qos -i enp65s0f0: Netlink error: Operation not permitted'));
    const one = await trafficClass(`==> mlx5_2 1 enp65s0f1 <==\n${qosOf('centos12-ens6-pcp-no-pfc.txt')}`);
    assert.match(one.detail, /Not read: no mlnx_qos output for mlx5_1:1\.$/);
  });

  it('without ibv_devinfo the RoCE ports come from sysfs (link_layer, state), their interfaces from the GIDs', async () => {
    const dscp = qosOf('netarbiter-eth4-dscp-pfc3.txt');
    const d = diagnose(await hostReport({ ...pcieHost(), 'roce-qos': `==> mlx5_0 1 ens3np0 <==\n${dscp}` }), {
      version: { major: 2, minor: 21, patch: 5 },
      env: { NCCL_IB_TC: '106' },
    });
    const f = only(d.findings, 'roce.traffic-class');
    assert.match(f.detail, /mlx5_0:1 \(ens3np0\): trust dscp, NCCL_IB_TC=106 → DSCP 26 → priority 3; PFC on priority 3\./);
    assert.ok(f.evidence.includes('/sys/class/infiniband/mlx5_0/ports/1/link_layer: Ethernet'), f.evidence.join('\n'));
    assert.ok(!d.findings.some((x) => x.id === 'roce.mtu-low'));
  });
});
