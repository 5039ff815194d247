// Which network NCCL uses (NVIDIA/nccl v2.30.7-1 src/plugin/net.cc): a plugin library first (libnccl-net.so,
// or libnccl-net-<name>.so for NCCL_NET_PLUGIN=<name>; "none" loads none), then its own IB transport (unless
// NCCL_IB_DISABLE), then TCP sockets; NCCL_NET names one of them. RDMA devices whose link layer is neither
// InfiniBand nor Ethernet (AWS EFA) are the plugin's: NCCL's own IB transport skips them.

/** What the choice reads of a port (model.ts's HostPort has these). */
interface PortLayer {
  readonly device: string;
  /** null when unread; 'other': neither InfiniBand nor Ethernet (EFA). */
  readonly linkLayer: string | null;
}

export type NetworkKind = 'IB' | 'Socket' | 'plugin';

export interface NetworkChoice {
  readonly kind: NetworkKind;
  /** The plugin's devices (EFA), when the plugin carries the traffic or is missing for them. */
  readonly pluginDevices: readonly string[];
  /** The plugin libraries NCCL would load; null when not read. */
  readonly pluginLibraries: readonly string[] | null;
  /** Why NCCL uses sockets, when it does. */
  readonly socketWhy: 'ib-disabled' | 'net-socket' | 'no-plugin' | null;
}

export interface NetworkEnv {
  readonly ibDisable: number | null;
  /** NCCL_NET_PLUGIN as given; null: unset (libnccl-net.so). */
  readonly netPlugin: string | null;
  /** NCCL_NET as given; null: unset (the first that works). */
  readonly net: string | null;
}

export function chooseNetwork(ports: readonly PortLayer[] | null, libraries: readonly string[] | null, env: NetworkEnv): NetworkChoice {
  const pluginDevices = [...new Set((ports ?? []).filter((p) => p.linkLayer === 'other').map((p) => p.device))];
  const ibDevices = (ports ?? []).some((p) => p.linkLayer !== 'other');
  const wanted =
    env.netPlugin === null
      ? ['libnccl-net.so']
      : env.netPlugin.split(',').map((n) => (n.trim() === '' ? '' : `libnccl-net-${n.trim()}.so`));
  const none = env.netPlugin !== null && env.netPlugin.trim().toLowerCase() === 'none';
  const found = libraries === null ? null : libraries.filter((l) => wanted.some((w) => w !== '' && l.endsWith(`/${w}`)));
  const pluginUsable = none ? false : found === null ? null : found.length > 0;
  const base = { pluginDevices, pluginLibraries: found };
  const named = env.net?.trim().toLowerCase() ?? null;
  if (pluginDevices.length > 0 && !ibDevices && pluginUsable !== false && named !== 'ib' && named !== 'socket')
    return { ...base, kind: 'plugin', socketWhy: null };
  if (named === 'socket') return { ...base, kind: 'Socket', socketWhy: 'net-socket' };
  if ((env.ibDisable ?? 0) !== 0) return { ...base, kind: 'Socket', socketWhy: 'ib-disabled' };
  if (pluginDevices.length > 0 && !ibDevices) return { ...base, kind: 'Socket', socketWhy: 'no-plugin' };
  return { ...base, kind: 'IB', socketWhy: null };
}
