// RDMA side: is there an RDMA device, does it have a working port, is the OFED stack installed.
import { ProbeReport } from '../probe/runProbe';
import { commandOf, factOf, labelOf, note, outputLines, quote } from './evidence';
import { RuleContext } from './context';
import { Finding, SOURCES } from './finding';
import { inboxStackBlocksPeermem } from './hostState';
import { rdmaPorts } from './rdmaPorts';
import { t } from '../l10n';

/** Whether any RDMA device is known: from ibv_devinfo, else from topo's NIC columns; null if neither says. */
export function rdmaDevicesKnown(report: ProbeReport): boolean | null {
  const ibv = factOf(report, 'ibv');
  if (ibv) return ibv.devices.length > 0;
  const topo = factOf(report, 'topo');
  return topo ? topo.nics.length > 0 : null;
}

export function rdmaNoneFindings(report: ProbeReport): Finding[] {
  const ibv = factOf(report, 'ibv');
  const topo = factOf(report, 'topo');
  const ibvMissing = commandOf(report, 'ibv')?.missing === true;
  let evidence: string[];
  if (ibv && ibv.devices.length === 0) evidence = quote(report, 'ibv', (l) => ibv.messages.includes(l.trim()));
  else if (!ibv && ibvMissing && topo && topo.nics.length === 0) {
    evidence = [note(report, 'ibv', 'command not found (exit 127)'), note(report, 'topo', 'no NIC column in the matrix')];
  } else return [];
  return [{
    id: 'rdma.none',
    severity: 'error',
    title: t('No RDMA device'),
    detail: t('GPUDirect RDMA moves data between a GPU and an RDMA NIC (InfiniBand or RoCE); this host shows none. Install an RDMA-capable NIC, or load its driver (mlx5_core/mlx5_ib) and rdma-core; without one, multi-node NCCL falls back to TCP sockets.'),
    evidence,
    fixes: [],
    source: SOURCES.rdmaCore,
  }];
}

/** Devices with no PORT_ACTIVE port: error when every device is down, else a warning. */
export function portDownFindings(report: ProbeReport): Finding[] {
  const ports = rdmaPorts(report) ?? [];
  const names = [...new Set(ports.map((p) => p.device))];
  const devices = names.map((name) => {
    const own = ports.filter((p) => p.device === name);
    const evidence = own[0].source === 'ibv' ? () => deviceStateLines(report, name) : () => sysfsStateLines(report, name);
    return { name, active: own.filter((p) => p.active !== null).map((p) => p.active as boolean), evidence };
  });
  const down = devices.filter((d) => d.active.length > 0 && !d.active.includes(true));
  if (down.length === 0) return [];
  const all = down.length === devices.length;
  return [{
    id: 'rdma.port-down',
    severity: all ? 'error' : 'warning',
    title: t('No active port on {0}', down.map((d) => d.name).join(', ')),
    detail: all
      ? t('No RDMA device has port in state PORT_ACTIVE, so no traffic can use any of them. Check the cable and switch port, the subnet manager (InfiniBand: ports stay INIT without one) or the link settings (RoCE), and keep inactive devices out of NCCL_IB_HCA.')
      : t('These RDMA devices have no port in state PORT_ACTIVE, so no traffic can use them. Check the cable and switch port, the subnet manager (InfiniBand: ports stay INIT without one) or the link settings (RoCE), and keep inactive devices out of NCCL_IB_HCA.'),
    evidence: down.flatMap((d) => d.evidence()),
    fixes: [],
    source: SOURCES.rdmaCore,
  }];
}

/** The sysfs read's `port` lines of one device (`port  mlx5_1  1  1: DOWN  InfiniBand  …`). */
function sysfsStateLines(report: ProbeReport, device: string): string[] {
  return quote(report, 'pci-sysfs', (l) => l.split('\t')[0] === 'port' && l.split('\t')[1] === device);
}

/** The `hca_id:` line and each port's `state:` line of one device block, as printed. */
function deviceStateLines(report: ProbeReport, device: string): string[] {
  const lines = outputLines(report, 'ibv');
  const start = lines.findIndex((l) => /^hca_id:/.test(l.trim()) && l.trim().split(/\s+/)[1] === device);
  if (start < 0) return [];
  const next = lines.findIndex((l, i) => i > start && /^hca_id:/.test(l.trim()));
  const block = lines.slice(start, next < 0 ? lines.length : next);
  const label = labelOf(report, 'ibv');
  return [block[0], ...block.filter((l) => /^(port|state):/.test(l.trim()))].map((l) => `${label}: ${l.trim()}`);
}

/** `ofed.missing`: RDMA devices but no MLNX_OFED/DOCA-OFED, and nothing shows the peer-memory API anyway. */
export function ofedMissingFindings({ report, host, dmabuf }: RuleContext): Finding[] {
  if (host.ofedPresent !== false || rdmaDevicesKnown(report) !== true) return [];
  // A registered peer-memory client proves an OFED ib_core; the inbox case has its own finding.
  if ((host.peermem.registered?.length ?? 0) > 0 || inboxStackBlocksPeermem(host)) return [];
  const ofed = commandOf(report, 'ofed');
  return [{
    id: 'ofed.missing',
    severity: dmabuf.available === true ? 'info' : 'warning',
    title: t('MLNX_OFED / DOCA-OFED is not installed'),
    detail: dmabuf.available === true
      ? t('ofed_info is not there, so the RDMA stack is the inbox one. nvidia-peermem needs the OFED ib_core (ib_register_peer_memory_client); dma-buf is available here and works with inbox rdma-core, so OFED is optional.')
      : t('ofed_info is not there, so the RDMA stack is the inbox one. nvidia-peermem needs the OFED ib_core (ib_register_peer_memory_client); install MLNX_OFED/DOCA-OFED before the NVIDIA driver, or use dma-buf (open kernel modules ≥ 535, kernel ≥ 5.12, rdma-core ≥ 34).'),
    evidence: [ofed?.missing ? note(report, 'ofed', 'command not found (exit 127)') : note(report, 'ofed', `exit ${ofed?.exitCode ?? '?'}`)],
    fixes: [],
    source: SOURCES.dmabuf,
  }];
}
