// How NCCL_IB_HCA names the ports NCCL keeps, for the whole host (suggestedEnv.ts) and for one GPU
// (pairs.ts) alike. Which ports are usable is decided once, by the NCCL model from the one reading of
// the RDMA ports (rdmaPorts.ts → topology/nccl/model.ts usability): a port that is not PORT_ACTIVE, not
// IB/RoCE, or filtered by the user's NCCL_IB_HCA never reaches either value.
import type { TableNet } from '../topology/nccl/pathTable';

/** `mlx5_0:1`; the device alone where its port states were not read (NCCL then takes any port of it). */
export function ibHcaEntry(net: TableNet): string {
  return net.active === null ? net.device : net.name;
}

/** `=mlx5_0:1,mlx5_2:1` ("=" asks NCCL for exact names); null without a port. */
export function ncclIbHcaValue(nets: readonly TableNet[]): string | null {
  return nets.length === 0 ? null : `=${nets.map(ibHcaEntry).join(',')}`;
}
