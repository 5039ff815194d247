// Hosts whose RDMA devices only a network plugin drives (AWS EFA: link layer neither InfiniBand nor
// Ethernet): NCCL's own IB transport and its peer-memory test do not apply there; the plugin registers GPU
// memory itself (aws-ofi-nccl over libfabric's efa provider: FI_HMEM through the efa driver, or dma-buf).
// So the peer-memory and OFED rules stay silent, and one finding says what decides and how to confirm it.
import { ProbeReport } from '../probe/runProbe';
import type { HostVerdict } from '../topology/nccl/model';
import { factOf, labelOf, note } from './evidence';
import { Finding } from './finding';
import { rdmaPorts } from './rdmaPorts';
import { t } from '../l10n';

const SOURCE = 'NVIDIA/nccl src/plugin/net.cc (plugin, then IB, then Socket); aws/aws-ofi-nccl; libfabric fi_efa(7)';

/** Every RDMA port read is neither InfiniBand nor RoCE: only a plugin's (EFA). False without RDMA ports. */
export function pluginOnlyHost(report: ProbeReport): boolean {
  const ports = rdmaPorts(report) ?? [];
  return ports.length > 0 && ports.every((p) => p.linkLayer === 'other');
}

export function netPluginFindings(report: ProbeReport, hv: HostVerdict | null): Finding[] {
  if (!pluginOnlyHost(report) || !hv) return [];
  const choice = hv.networkChoice;
  const devices = choice.pluginDevices.join(', ');
  const libs = factOf(report, 'nccl-net-plugin');
  const efa = factOf(report, 'fi-info')?.entries.filter((e) => e.provider === 'efa') ?? [];
  const evidence = [
    ...(libs
      ? libs.libraries.length > 0
        ? libs.libraries.map((l) => `${labelOf(report, 'nccl-net-plugin')}: ${l}`)
        : [note(report, 'nccl-net-plugin', 'no libnccl-net*.so')]
      : []),
    ...efa.map((e) => `${labelOf(report, 'fi-info')}: provider ${e.provider}, fabric ${e.fabric}, domain ${e.domain}, ${e.type}`),
  ];
  if (hv.network === 'Socket' && choice.socketWhy === 'no-plugin')
    return [
      {
        id: 'net.plugin-missing',
        severity: 'warning',
        title: t('No NCCL network plugin for {0}: NCCL falls back to TCP sockets', devices),
        detail: t(
          "These RDMA devices are neither InfiniBand nor RoCE (AWS EFA), so NCCL reaches them only through a network plugin: aws-ofi-nccl, loaded as libnccl-net.so (or libnccl-net-<name>.so with NCCL_NET_PLUGIN). None was found in the linker cache or the usual install folders (/opt/amazon/ofi-nccl/lib…): install the EFA installer's aws-ofi-nccl, or put its folder on the job's LD_LIBRARY_PATH. Without it NCCL uses TCP sockets, never GPUDirect RDMA.",
        ),
        evidence,
        fixes: [],
        source: SOURCE,
      },
    ];
  return [
    {
      id: 'net.plugin',
      severity: 'info',
      title: t('{0}: NCCL uses them through a network plugin, which decides GPUDirect RDMA', devices),
      detail: t(
        'NCCL\'s own InfiniBand transport and its peer-memory test do not apply to these devices (AWS EFA); the network plugin (aws-ofi-nccl over libfabric\'s efa provider) registers GPU memory itself: FI_HMEM through the efa driver\'s peer-memory support, or dma-buf. NCCL then applies its own distance rule to the NICs the plugin reports. Confirm it in NCCL\'s log (NCCL_DEBUG=INFO): "NET/OFI Selected provider is efa", "Using network" with the plugin\'s name, and channel lines ending in "/GDRDMA".',
      ),
      evidence,
      fixes: [],
      source: SOURCE,
    },
  ];
}
