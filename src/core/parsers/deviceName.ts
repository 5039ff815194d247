// RDMA device names as a host reports them (ibv_devinfo's hca_id, /sys/class/infiniband/<dev>, show_gids'
// DEV column, nvidia-smi's NIC Legend). They end up in shell lines a user copies (NCCL_IB_HCA, sysfs paths
// in evidence), so a name is refused where it is read unless it is made of the characters every real
// driver uses (mlx5_0, mlx5_bond_0, rxe0, irdma-ens801f0, efa_0, hfi1_0, bnxt_re0): a hostile host's
// `m;id>/tmp/pwn;` fails the parse with the line that holds it instead of reaching a clipboard.
import { quote } from './result';

const DEVICE_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Whether a host-supplied RDMA device name is one gdr-doctor accepts (≤ 64 bytes, IB_DEVICE_NAME_MAX). */
export function isDeviceName(name: string): boolean {
  return DEVICE_NAME.test(name);
}

/** Why `name` is refused, for a parser's error ("…found …"); null when it is a device name. */
export function deviceNameProblem(name: string): string | null {
  return isDeviceName(name) ? null : `RDMA device name ${quote(name, 64)} refused: expected 1 to 64 of the characters A-Z a-z 0-9 _ . : -`;
}
