// RoCE and InfiniBand port checks (docs/nccl-gdr.md §9) on the ports NCCL uses:
// - `roce.no-v2-gid`: a RoCE port with no RoCE v2 GID on an IPv4/IPv6 address — only link-local
//   entries (no IP address on its netdev) or only RoCE v1 — cannot reach another subnet.
// - `roce.gid-index`: NCCL's own choice (topology/nccl/gidIndex.ts, after ncclIbGetGidIndex) lands on
//   a link-local or RoCE v1 entry although a routable v2 one exists: say which NCCL_IB_GID_INDEX to set.
// - `ib.mtu-low`: an InfiniBand port's active MTU below 4096; NCCL connects with the smaller of both
//   ends' active_mtu (src/transport/net_ib/connect.cc ncclIbConnect/ncclIbAccept, `devInfo->mtu`).
// - `ib.link-degraded` (ibRate.ts): an InfiniBand port slower than the same adapters' ports on the host.
// - `roce.mtu-low`, `roce.traffic-class` (roceFabric.ts): a RoCE MTU below 4096, NCCL_IB_TC/NCCL_IB_SL.
// - `rdma.mixed-link-layers`: the suggested NCCL_IB_HCA mixes InfiniBand and RoCE ports.
import { activeMtu, linkLayer, portState } from '../parsers/ibvDevinfoFields';
import type { GidEntry } from '../parsers/showGids';
import type { RdmaPort } from '../probe/pciSysfs';
import { GidChoice, bestGid, gidKind, ncclGidChoice, routable } from '../topology/nccl/gidIndex';
import { formatNcclVersion } from '../topology/nccl/version';
import { RuleContext } from './context';
import { factOf } from './evidence';
import { Finding, SOURCES } from './finding';
import { ibRateFindings } from './ibRate';
import { roceFabricFindings } from './roceFabric';
import { GpuNicPair } from './pairs';
import { t } from '../l10n';

const GID_SOURCE =
  'NVIDIA/nccl src/transport/net_ib/connect.cc ncclIbGetGidIndex, ncclUpdateGidIndex (2.21+; net_ib.cc before 2.23); /sys/class/infiniband/<dev>/ports/<n>/gids, gid_attrs/types';

interface UsedPort {
  readonly device: string;
  readonly port: RdmaPort;
}

/** The RDMA ports NCCL gives the GPUs, as sysfs read them; every active port when there is no verdict. */
function usedPorts(ctx: RuleContext, pairs: readonly GpuNicPair[]): UsedPort[] {
  const sysfs = factOf(ctx.report, 'pci-sysfs');
  if (!sysfs) return [];
  const wanted = new Set(pairs.flatMap((p) => p.nics.map((n) => `${n.device}:${n.port ?? 1}`)));
  return sysfs.rdma.flatMap((d) =>
    d.ports
      .filter((p) => (wanted.size > 0 ? wanted.has(`${d.name}:${p.port}`) : p.state === 'ACTIVE'))
      .map((port) => ({ device: d.name, port })),
  );
}

function describeGid(g: GidEntry | null, index: number | null): string {
  if (index === null) return 'no GID (selection fails)';
  if (!g) return `GID ${index} (an empty slot)`;
  const kind = gidKind(g.gid);
  return `GID ${index} (${kind === 'ipv4' ? 'IPv4' : kind === 'ipv6' ? 'IPv6' : kind}, RoCE v${g.roceVersion ?? '?'})`;
}

export function roceFindings(ctx: RuleContext, pairs: readonly GpuNicPair[]): Finding[] {
  const roce = usedPorts(ctx, pairs).filter((u) => u.port.linkLayer === 'Ethernet');
  const noV2 = roce.filter((u) => !u.port.gids.some((g) => g.roceVersion === 2 && routable(g.gid)));
  const wrong = roce
    .filter((u) => !noV2.includes(u))
    .map((u) => ({ u, choice: ncclGidChoice(u.port.gids, ctx.nccl.version, ctx.nccl.env), best: bestGid(u.port.gids) }))
    .filter(({ choice }) => !(choice.entry && choice.entry.roceVersion === 2 && routable(choice.entry.gid)));
  return [
    ...(noV2.length > 0 ? [noV2Finding(noV2)] : []),
    ...(wrong.length > 0 ? [gidIndexFinding(ctx, wrong)] : []),
    ...ibPortFindings(ctx, pairs),
    ...roceFabricFindings(ctx, pairs),
    ...ibRateFindings(ctx.report, pairs),
    ...mixedFindings(ctx, pairs),
  ];
}

function noV2Finding(ports: readonly UsedPort[]): Finding {
  const why = (u: UsedPort) => {
    const g = u.port.gids;
    if (g.length === 0) return 'no GID at all';
    if (g.every((x) => gidKind(x.gid) === 'link-local'))
      return `only link-local GIDs (${g.map((x) => x.index).join(', ')}): no IP address on ${g[0].netdev ?? 'its netdev'}`;
    return `routable GIDs only as RoCE v1 (${g
      .filter((x) => routable(x.gid))
      .map((x) => x.index)
      .join(', ')})`;
  };
  return {
    id: 'roce.no-v2-gid',
    severity: 'warning',
    title: t('No routable RoCE v2 GID on {0}', ports.map((u) => `${u.device}:${u.port.port}`).join(', ')),
    detail: t(
      '{0}. RoCE v2 carries RDMA in UDP/IP packets and needs a GID built from an IP address of the port\'s netdev; link-local (fe80::) and RoCE v1 GIDs do not cross a router, so NCCL connections to other nodes time out ("Got completion with error 12"). Give the netdev its IP address (the kernel then adds a v1 and a v2 GID for it) and check that the RoCE mode is v2 (cma_roce_mode).',
      ports.map((u) => `${u.device} port ${u.port.port}: ${why(u)}`).join('; '),
    ),
    evidence: ports.flatMap((u) => gidEvidence(u)).slice(0, 6),
    fixes: [],
    source: GID_SOURCE,
  };
}

function gidEvidence(u: UsedPort): string[] {
  const base = `/sys/class/infiniband/${u.device}/ports/${u.port.port}`;
  if (u.port.gids.length === 0) return [`${base}/gids: (no populated entry)`];
  return u.port.gids
    .slice(0, 4)
    .map(
      (g) =>
        `${base}/gids/${g.index}: ${g.gid} (${g.roceVersion === null ? 'type unreadable' : `RoCE v${g.roceVersion}`}${g.netdev ? `, ${g.netdev}` : ''})`,
    );
}

type WrongGid = { u: UsedPort; choice: GidChoice; best: GidEntry | null };

/** `device: index` of the routable GID one port should use. */
function bestIndexText(w: WrongGid): string {
  return `${w.u.device}: ${w.best?.index ?? '?'}`;
}

/** What NCCL picks on one port against the routable RoCE v2 entry. */
function gidChoiceText(w: WrongGid): string {
  const picked = describeGid(w.choice.entry, w.choice.index);
  const routable = describeGid(w.best, w.best?.index ?? null);
  return t(
    '{0} port {1}: NCCL picks {2} ({3}), the routable RoCE v2 entry is {4}',
    w.u.device,
    w.u.port.port,
    picked,
    w.choice.how,
    routable,
  );
}

function gidIndexFinding(ctx: RuleContext, wrong: readonly WrongGid[]): Finding {
  const indexes = [...new Set(wrong.map((w) => w.best?.index).filter((i): i is number => i !== undefined))];
  const ipv6 = wrong.every((w) => w.best && gidKind(w.best.gid) === 'ipv6');
  const set =
    indexes.length === 1
      ? `NCCL_IB_GID_INDEX=${indexes[0]}`
      : ipv6
        ? 'NCCL_IB_ADDR_FAMILY=AF_INET6'
        : `NCCL_IB_GID_INDEX per port (${wrong.map(bestIndexText).join(', ')}; it is one value per job, so align the GID tables)`;
  return {
    id: 'roce.gid-index',
    severity: 'warning',
    title: t(
      'NCCL {0} would use a non-routable GID on {1}: set {2}',
      formatNcclVersion(ctx.nccl.version),
      wrong.map((w) => `${w.u.device}:${w.u.port.port}`).join(', '),
      indexes.length === 1 ? `NCCL_IB_GID_INDEX=${indexes[0]}` : t('the GID index'),
    ),
    detail: [
      `${wrong.map(gidChoiceText).join('; ')}.`,
      t(
        'A link-local or RoCE v1 GID does not cross an IP router, so connections between nodes fail or time out. Set {0} for the job (NCCL_IB_GID_INDEX needs the same index on every node).',
        set,
      ),
    ].join(' '),
    evidence: wrong.flatMap((w) => gidEvidence(w.u)).slice(0, 6),
    fixes: [],
    source: GID_SOURCE,
  };
}

/** InfiniBand ports NCCL uses with a small MTU, from ibv_devinfo -v. */
function ibPortFindings(ctx: RuleContext, pairs: readonly GpuNicPair[]): Finding[] {
  const ibv = factOf(ctx.report, 'ibv');
  if (!ibv) return [];
  // A down port's active_mtu and active_width are left over from its last link, not in use.
  const active = ibv.devices
    .flatMap((d) => d.ports.map((p) => ({ name: `${d.hca_id}:${p.port}`, p })))
    .filter(({ p }) => linkLayer(p) !== 'Ethernet' && (portState(p) ?? 'ACTIVE') === 'ACTIVE');
  const wanted = new Set(pairs.flatMap((p) => p.nics.map((n) => `${n.device}:${n.port ?? 1}`)));
  // Without a verdict on these devices (no pairs, or topo naming other devices than ibv_devinfo), every active port.
  const ports = active.some(({ name }) => wanted.has(name)) ? active.filter(({ name }) => wanted.has(name)) : active;
  const lowMtu = ports.filter(({ p }) => (activeMtu(p) ?? 4096) < 4096);
  const out: Finding[] = [];
  if (lowMtu.length > 0) {
    out.push({
      id: 'ib.mtu-low',
      severity: 'warning',
      title: t('InfiniBand MTU below 4096 on {0}', lowMtu.map((x) => x.name).join(', ')),
      detail: t(
        '{0}. NCCL connects with the smaller active MTU of the two ends (ncclIbConnect/ncclIbAccept in src/transport/net_ib/connect.cc), so each message needs more packets. InfiniBand HCAs and switches support 4096: raise the partition MTU in the subnet manager (opensm partitions.conf "mtu=5").',
        lowMtu.map((x) => `${x.name}: active_mtu ${activeMtu(x.p)}`).join('; '),
      ),
      evidence: lowMtu.slice(0, 4).map((x) => `ibv_devinfo -v: ${x.name} active_mtu: ${activeMtu(x.p)}`),
      fixes: [],
      source: `${SOURCES.rdmaCore}; NVIDIA/nccl src/transport/net_ib/connect.cc (path_mtu = min of both active_mtu)`,
    });
  }
  return out;
}

/** NCCL_IB_HCA should not mix link layers: an IB port cannot reach a RoCE port on another node. */
function mixedFindings(ctx: RuleContext, pairs: readonly GpuNicPair[]): Finding[] {
  const sysfs = factOf(ctx.report, 'pci-sysfs');
  const layerOf = (device: string | null, port: number | null) =>
    sysfs?.rdma.find((d) => d.name === device)?.ports.find((p) => p.port === (port ?? 1))?.linkLayer ?? '';
  const used = [...new Set(pairs.flatMap((p) => p.nics.map((n) => `${n.device}:${n.port ?? 1}|${layerOf(n.device, n.port)}`)))].map((s) =>
    s.split('|'),
  );
  const layers = new Set(used.map(([, l]) => l).filter((l) => l === 'InfiniBand' || l === 'Ethernet'));
  if (layers.size < 2) return [];
  return [
    {
      id: 'rdma.mixed-link-layers',
      severity: 'warning',
      title: t('The NICs NCCL uses mix InfiniBand and RoCE ports'),
      detail: t(
        "{0}. NCCL pairs a rank's NIC with the peer's NIC of the same channel; an InfiniBand port cannot reach a RoCE port, so mixed sets fail to connect or fall back. Keep NCCL_IB_HCA to one fabric (for example only the InfiniBand ports), the same on every node.",
        used.map(([name, l]) => `${name} ${l === 'Ethernet' ? 'RoCE' : l}`).join(', '),
      ),
      evidence: used.slice(0, 6).map(([name, l]) => `/sys/class/infiniband/${name.replace(':', '/ports/')}/link_layer: ${l}`),
      fixes: [],
      source: `${SOURCES.ncclEnv}; NVIDIA/nccl src/transport/net_ib (one fabric per connection)`,
    },
  ];
}
