// What the RoCE NICs' own QoS shows for the traffic class NCCL puts on its queue pairs (roceFabric.ts): the trust
// mode, the DSCP→priority map and the PFC priorities that `mlnx_qos -i` prints (probe/roceQos.ts), as the mlx5
// driver keeps them (Linux drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c: mlx5e_set_trust_state,
// mlx5e_set_dscp2prio, mlx5e_dcbnl_ieee_getpfc). With trust dscp the NIC gives a packet the priority its DSCP maps
// to, and DSCP is the traffic class's top six bits (NCCL_IB_TC >> 2). Facts only, never a verdict: the switches are
// not visible, lossy RoCE (ECN without PFC) is a valid design, MLNX_OFED/DOCA-OFED's mlx5_ib can put one class
// on a whole device (tc/1/traffic_class, "Global tclass=N", in place of the queue pair's), and with trust pcp the
// priority comes from the VLAN tag (the interface's egress map), which the host does not show here.
import { MAX_QOS_BYTES, RoceQosPort } from '../probe/roceQos';
import { RuleContext } from './context';
import { factOf } from './evidence';
import { t } from '../l10n';

export interface QosPortRef {
  /** `mlx5_0:1` */
  readonly name: string;
}

export interface QosReading {
  /** One sentence per port whose QoS was read. */
  readonly read: string[];
  /** Why the rest were not read (translated), each once. */
  readonly notRead: string[];
  readonly evidence: string[];
}

const GLOBAL_TCLASS = /tclass=([0-9]{1,3})\b/;

export function readRoceQos(ctx: RuleContext, ports: readonly QosPortRef[], ncclTc: number | null): QosReading {
  const fact = factOf(ctx.report, 'roce-qos');
  if (!fact) return { read: [], notRead: [t('the probe did not collect them')], evidence: [] };
  if (!fact.installed) return { read: [], notRead: [t('mlnx_qos is not installed')], evidence: ['mlnx_qos: not installed'] };
  const reading: QosReading = { read: [], notRead: [], evidence: [] };
  for (const p of ports) {
    const q = fact.ports.find((x) => `${x.device}:${x.port}` === p.name);
    if (!q) reading.notRead.push(t('no mlnx_qos output for {0}', p.name));
    else if (!q.qos) {
      reading.notRead.push(t('mlnx_qos -i {0} showed no QoS (its output is in the evidence)', q.netdev));
      reading.evidence.push(`mlnx_qos -i ${q.netdev}: ${q.error ?? ''}`);
    } else {
      reading.read.push(portSentence(p.name, q, ncclTc));
      reading.evidence.push(...portEvidence(q, ncclTc));
    }
    if (q?.cut) reading.evidence.push(`mlnx_qos -i ${q.netdev}: output cut at ${MAX_QOS_BYTES} bytes`);
  }
  if (fact.more) reading.notRead.push(t('more RoCE interfaces than the probe reads'));
  return reading;
}

/** The class the NIC sends with: the device-wide one where MLNX_OFED shows one, else NCCL's (0 when unset). */
function classOf(q: RoceQosPort, ncclTc: number | null): { value: number; label: string } {
  const global = q.globalTclass ? GLOBAL_TCLASS.exec(q.globalTclass) : null;
  if (global && Number(global[1]) <= 255)
    return { value: Number(global[1]), label: t("the device's traffic class {0} (tc/1/traffic_class, in place of NCCL_IB_TC)", global[1]) };
  return ncclTc === null ? { value: 0, label: t('traffic class 0') } : { value: ncclTc & 0xff, label: `NCCL_IB_TC=${ncclTc}` };
}

function pfcText(pfc: readonly number[] | null): string {
  if (pfc === null) return t('PFC not shown');
  return pfc.length === 0 ? t('no priority has PFC here') : t('PFC on priority {0}', pfc.join(', '));
}

function portSentence(name: string, q: RoceQosPort, ncclTc: number | null): string {
  const where = `${name} (${q.netdev})`;
  const qos = q.qos!;
  if (qos.trust !== 'dscp')
    return t(
      '{0}: trust {1}, the priority comes from the VLAN tag (PCP), not the traffic class; {2}',
      where,
      qos.trust ?? '?',
      pfcText(qos.pfcEnabled),
    );
  const cls = classOf(q, ncclTc);
  const dscp = cls.value >> 2;
  const prio = qos.dscpPriority[dscp];
  if (prio === null)
    return t(
      '{0}: trust dscp, {1} → DSCP {2}, which its dscp2prio map does not name; {3}',
      where,
      cls.label,
      dscp,
      pfcText(qos.pfcEnabled),
    );
  const pfc = qos.pfcEnabled;
  const landing =
    pfc === null || pfc.length === 0 || pfc.includes(prio)
      ? pfcText(pfc)
      : t('priority {0} has no PFC here (PFC on {1})', prio, pfc.join(', '));
  return t('{0}: trust dscp, {1} → DSCP {2} → priority {3}; {4}', where, cls.label, dscp, prio, landing);
}

/** The host's own lines, as mlnx_qos and sysfs print them (not translated). */
function portEvidence(q: RoceQosPort, ncclTc: number | null): string[] {
  const qos = q.qos!;
  const lines = [`mlnx_qos -i ${q.netdev}: Priority trust state: ${qos.trust ?? '(none)'}`];
  if (qos.trust === 'dscp') {
    const dscp = classOf(q, ncclTc).value >> 2;
    const prio = qos.dscpPriority[dscp];
    if (prio !== null) lines.push(`mlnx_qos -i ${q.netdev}: prio:${prio} dscp:…${String(dscp).padStart(2, '0')}…`);
  }
  if (qos.pfcEnabled !== null) lines.push(`mlnx_qos -i ${q.netdev}: PFC enabled on priority ${qos.pfcEnabled.join(',') || 'none'}`);
  if (q.globalTclass) lines.push(`/sys/class/infiniband/${q.device}/tc/1/traffic_class: ${q.globalTclass}`);
  return lines;
}
