// Why GPUDirect RDMA was off, in words, from what NCCL printed. Each text says what NCCL's line
// means (docs/nccl-gdr.md has the rules); the line itself goes with it as evidence.
import { ncclRules } from '../topology/nccl/rules';
import { OLDEST_MODELLED_NCCL, atLeast, parseNcclVersion } from '../topology/nccl/version';
import { t } from '../l10n';

/** "GPU Direct RDMA Disabled for HCA n 'name'" (per NIC, from what the NIC side offers). */
export function hcaDisabledReason(net: string, name: string, reason: string | null): string {
  // Each reason starts with NCCL's own words (`HCA <name>:`, `NET/Socket`), which the findings match on.
  if (net === 'Socket') return `NET/Socket "${name}": ${t('the Socket transport (TCP) never uses GPU Direct RDMA')}`;
  if (reason !== null && /no module/.test(reason)) {
    return `HCA ${name}: ${t('GPU Direct RDMA disabled ({0}): no peer-memory module (nvidia-peermem, formerly nv_peer_mem) was loaded', reason)}`;
  }
  const why =
    reason === null
      ? t(
          'GPU Direct RDMA disabled: NCCL found neither a peer-memory module (nvidia-peermem) nor a usable DMA-BUF path (GPU, driver, kernel and NIC must all support it)',
        )
      : t(
          'GPU Direct RDMA disabled ({0}): NCCL found neither a peer-memory module (nvidia-peermem) nor a usable DMA-BUF path (GPU, driver, kernel and NIC must all support it)',
          reason,
        );
  return `HCA ${name}: ${why}`;
}

export interface DisabledPair {
  readonly gpu: string;
  /** The HCA's name where the log's NIC list names its number, else the number as printed. */
  readonly hca: string;
  /** The process that printed it (its NIC list names the HCA). */
  readonly pid: number | null;
  readonly distance: number;
  readonly threshold: number;
}

/** "GPU Direct RDMA Disabled for GPU x / HCA y (distance a > b)": the PCI path is longer than the threshold. */
export function pairDisabledReason(p: DisabledPair, ncclVersion: string | null): string {
  const name = pathClassNamer(ncclVersion);
  const beyond = t(
    'path distance {0} is beyond the GPU Direct RDMA threshold {1} (NCCL_NET_GDR_LEVEL)',
    name(p.distance),
    name(p.threshold),
  );
  return `GPU ${p.gpu} / HCA ${p.hca}: ${beyond}`;
}

/** Names NCCL's printed path numbers (the order of its path enum changed between releases). */
function pathClassNamer(ncclVersion: string | null): (n: number) => string {
  const v = ncclVersion === null ? null : parseNcclVersion(ncclVersion);
  if (v === null || !atLeast(v, OLDEST_MODELLED_NCCL.major, OLDEST_MODELLED_NCCL.minor)) return (n) => String(n);
  const order = ncclRules(v).order;
  return (n) => (order[n] === undefined ? String(n) : `${n} (${order[n]})`);
}

/** NCCL_* settings that turn GPUDirect RDMA (or RDMA) off, as NCCL echoed them. */
export function envReason(name: string, value: string): string | null {
  const v = value.trim();
  if (name === 'NCCL_NET_GDR_LEVEL' && (v === '0' || v === 'LOC'))
    return t('NCCL_NET_GDR_LEVEL set to {0}: GPU Direct RDMA is never used', v);
  if (name === 'NCCL_NET_GDR_READ' && v === '0') return t('NCCL_NET_GDR_READ set to 0: sends do not use GPU Direct RDMA');
  if (name === 'NCCL_IB_DISABLE' && v === '1')
    return t('NCCL_IB_DISABLE set to 1: the InfiniBand/RoCE transport is off, NCCL falls back to sockets');
  if (name === 'NCCL_DMABUF_ENABLE' && v === '0')
    return t('NCCL_DMABUF_ENABLE set to 0: DMA-BUF is not used (only a peer-memory module can enable GPU Direct RDMA)');
  return null;
}

export function socketNetworkReason(): string {
  return `Using network Socket: ${t('NCCL sends over TCP sockets, without RDMA or GPU Direct RDMA')}`;
}

export function noRdmaDeviceReason(net: string): string {
  return `NET/${net} : No device found: ${t('NCCL saw no usable RDMA device (no active port, or the verbs library is missing)')}`;
}

export function ringsGdrOffReason(): string {
  return `Connected all rings, use ring PXN … GDR 0: ${t("NCCL decided not to use GPU Direct RDMA on this communicator's rings")}`;
}

export function pluginGdrOffReason(text: string): string {
  return t('the network plugin turned GPU Direct RDMA off: "{0}"', text);
}

export function unexplainedReason(without: number, total: number): string {
  return t(
    '{0} of {1} network connections without /GDRDMA, and the log does not say why (run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET for the per-HCA and per-GPU lines)',
    without,
    total,
  );
}
