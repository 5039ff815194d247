// RoCE fabric basics, each only where the host's own text shows the fact (docs/nccl-gdr.md §8):
// - `roce.mtu-low` (information): a RoCE port NCCL uses runs an `active_mtu` below 4096 (ibv_devinfo -v). A RoCE port's
//   MTU follows its netdev's: the driver takes the largest IB MTU that fits the netdev MTU less the RoCE
//   headers (Linux include/rdma/ib_addr.h iboe_get_mtu, called by mlx5_query_port_roce in
//   drivers/infiniband/hw/mlx5/main.c), so 1024 means a netdev MTU of about 1500; NCCL then connects with
//   the smaller active_mtu of both ends (NVIDIA/nccl src/transport/net_ib/connect.cc ncclIbConnect/ncclIbAccept).
// - `roce.traffic-class`: the traffic class and service level NCCL puts on its RoCE queue pairs
//   (NCCL_IB_TC into grh.traffic_class, NCCL_IB_SL into ah_attr.sl: ncclIbRtrQp, and meta.tc/meta.sl in
//   ncclIbConnect, src/transport/net_ib/connect.cc from 2.23, net_ib.cc before; 0 when unset), and what the
//   NIC's own QoS shows for it where the host has mlnx_qos (roceQos.ts: trust mode, the priority the class's
//   DSCP maps to, the PFC priorities; Linux drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c). Information
//   only: the switches are not visible, and lossy RoCE (ECN without PFC) is a valid design.
import { activeMtu, linkLayer, portState } from '../parsers/ibvDevinfoFields';
import { strtoll } from '../topology/nccl/env';
import { RuleContext } from './context';
import { factOf } from './evidence';
import { Finding } from './finding';
import { GpuNicPair } from './pairs';
import { QosReading, readRoceQos } from './roceQos';
import { t } from '../l10n';

const MTU_SOURCE =
  'Linux include/rdma/ib_addr.h iboe_get_mtu, drivers/infiniband/hw/mlx5/main.c mlx5_query_port_roce; NVIDIA/nccl src/transport/net_ib/connect.cc ncclIbConnect/ncclIbAccept (path_mtu = min of both active_mtu)';
const TC_SOURCE =
  'NVIDIA/nccl src/transport/net_ib/connect.cc ncclIbConnect (meta.tc, meta.sl), ncclIbRtrQp (grh.traffic_class, ah_attr.sl); src/transport/net_ib.cc before 2.23; NCCL documentation, Environment Variables (NCCL_IB_TC, NCCL_IB_SL); Linux drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c (mlx5e_set_trust_state, mlx5e_set_dscp2prio, mlx5e_dcbnl_ieee_getpfc)';

interface RocePort {
  readonly name: string;
  readonly mtu: number | null;
  /** The netdev its GIDs name (sysfs gid_attrs/ndevs), when read. */
  readonly netdev: string | null;
  /** Where its link layer was read: `ibv_devinfo -v: mlx5_0:1 link_layer: Ethernet`, or the sysfs file. */
  readonly seen: string;
}

/**
 * Active RoCE ports NCCL uses (every active one when no pair names them): from ibv_devinfo -v, or from sysfs
 * (`ports/N/link_layer`, `state`) where ibv_devinfo was not read; the MTU is then unknown.
 */
function rocePorts(ctx: RuleContext, pairs: readonly GpuNicPair[]): RocePort[] {
  const sysfs = factOf(ctx.report, 'pci-sysfs');
  const sysfsPort = (device: string, port: number) => sysfs?.rdma.find((d) => d.name === device)?.ports.find((p) => p.port === port);
  const netdevOf = (device: string, port: number) => sysfsPort(device, port)?.gids.find((g) => g.netdev)?.netdev ?? null;
  const ibv = factOf(ctx.report, 'ibv');
  const active = ibv
    ? ibv.devices.flatMap((d) =>
        d.ports
          .filter((p) => linkLayer(p) === 'Ethernet' && (portState(p) ?? 'ACTIVE') === 'ACTIVE')
          .map((p) => ({
            name: `${d.hca_id}:${p.port}`,
            mtu: activeMtu(p),
            netdev: netdevOf(d.hca_id, p.port),
            seen: `ibv_devinfo -v: ${d.hca_id}:${p.port} link_layer: Ethernet`,
          })),
      )
    : (sysfs?.rdma ?? []).flatMap((d) =>
        d.ports
          .filter((p) => p.linkLayer === 'Ethernet' && p.state === 'ACTIVE')
          .map((p) => ({
            name: `${d.name}:${p.port}`,
            mtu: null,
            netdev: netdevOf(d.name, p.port),
            seen: `/sys/class/infiniband/${d.name}/ports/${p.port}/link_layer: Ethernet`,
          })),
      );
  const wanted = new Set(pairs.flatMap((p) => p.nics.map((n) => `${n.device}:${n.port ?? 1}`)));
  return active.some((p) => wanted.has(p.name)) ? active.filter((p) => wanted.has(p.name)) : active;
}

export function roceFabricFindings(ctx: RuleContext, pairs: readonly GpuNicPair[]): Finding[] {
  const ports = rocePorts(ctx, pairs);
  if (ports.length === 0) return [];
  return [...mtuFindings(ports), trafficClassFinding(ctx, ports)];
}

function mtuFindings(ports: readonly RocePort[]): Finding[] {
  const low = ports.filter((p) => p.mtu !== null && p.mtu < 4096);
  if (low.length === 0) return [];
  const where = (p: RocePort) => (p.netdev ? `${p.name} (${p.netdev}): active_mtu ${p.mtu}` : `${p.name}: active_mtu ${p.mtu}`);
  return [
    {
      id: 'roce.mtu-low',
      // Information: the bytes still move, with about 5 % more header per byte and four times the packets.
      severity: 'info',
      title: t('RoCE MTU below 4096 on {0}', low.map((p) => p.name).join(', ')),
      detail: t(
        "{0}. A RoCE port's MTU follows its Ethernet interface's: the driver takes the largest RDMA MTU that fits the interface MTU less the RoCE headers (iboe_get_mtu in Linux include/rdma/ib_addr.h), so 1024 means an interface MTU of about 1500, and NCCL connects with the smaller MTU of the two ends (ncclIbConnect/ncclIbAccept in src/transport/net_ib/connect.cc): four times the packets of 4096, with about 5 % more of each packet spent on headers. Set the interface MTU to 4200 or more (9000 is usual) on every node and on the switch ports, then check active_mtu reads 4096.",
        low.map(where).join('; '),
      ),
      evidence: low.slice(0, 6).map((p) => `ibv_devinfo -v: ${p.name} active_mtu: ${p.mtu} (link_layer: Ethernet)`),
      fixes: [],
      source: MTU_SOURCE,
    },
  ];
}

/** NCCL reads its integer parameters with strtoll, base 0 (src/misc/param.cc ncclLoadParam); null when unset. */
const intParam = (value: string | undefined): number | null => (value === undefined || value === '' ? null : strtoll(value));

function trafficClassFinding(ctx: RuleContext, ports: readonly RocePort[]): Finding {
  const tc = intParam(ctx.nccl.env.NCCL_IB_TC);
  const sl = intParam(ctx.nccl.env.NCCL_IB_SL);
  const tcText = tc === null ? t('traffic class 0 (NCCL_IB_TC not set)') : t('NCCL_IB_TC={0} (DSCP {1})', tc, tc >> 2);
  const slText = sl === null ? t('service level 0 (NCCL_IB_SL not set)') : `NCCL_IB_SL=${sl}`;
  const qos = readRoceQos(ctx, ports, tc);
  return {
    id: 'roce.traffic-class',
    severity: 'info',
    title: t('NCCL marks its RoCE traffic on {0} with {1}, {2}', ports.map((p) => p.name).join(', '), tcText, slText),
    detail: `${t(
      'NCCL puts NCCL_IB_TC into the IP header of every RoCE packet (the traffic class: DSCP is its top six bits) and NCCL_IB_SL into the queue pair (ncclIbRtrQp in src/transport/net_ib/connect.cc). On a lossless fabric that class must be the one the switches and NICs give PFC (priority flow control) and ECN.',
    )} ${qosText(qos)}`,
    evidence: [
      `NCCL_IB_TC: ${ctx.nccl.env.NCCL_IB_TC ?? '(not set)'}`,
      `NCCL_IB_SL: ${ctx.nccl.env.NCCL_IB_SL ?? '(not set)'}`,
      ...ports.slice(0, 4).map((p) => p.seen),
      ...qos.evidence.slice(0, 12),
    ],
    fixes: [],
    source: TC_SOURCE,
  };
}

/** What the NICs' QoS showed (nothing judged), and what was not read. */
function qosText(qos: QosReading): string {
  const notRead = qos.notRead.join('; ');
  if (qos.read.length === 0)
    return t(
      'The NIC\'s trust mode and PFC priorities were not read ({0}); "mlnx_qos -i <interface>" shows them. Nothing is judged here; set NCCL_IB_TC for the job to the DSCP your fabric is configured for (DSCP × 4).',
      notRead,
    );
  const rest = notRead === '' ? '' : ` ${t('Not read: {0}.', notRead)}`;
  return (
    t(
      'What the NICs show (mlnx_qos; the mlx5 driver keeps the trust state, the DSCP→priority map and PFC in drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c): {0}. Nothing is judged from this: the switches are not visible here, lossy RoCE (ECN without PFC) is a valid design, MLNX_OFED/DOCA can put one traffic class on a whole device (tc/1/traffic_class), and with trust pcp the priority comes from the VLAN tag.',
      qos.read.join('; '),
    ) + rest
  );
}
