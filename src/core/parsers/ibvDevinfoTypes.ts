// What parseIbvDevinfo returns (ibvDevinfo.ts describes the representation). The types live apart from the
// parser so the field readers and the block builder can use them without importing the parser back.

export interface IbvLines {
  /** Text after the colon on the field's own line ('' when the field only introduces a list). */
  readonly value: string;
  /** The deeper-indented lines that follow, trimmed, in printed order. */
  readonly lines: readonly string[];
}

export type IbvValue = string | IbvLines;

export interface IbvGid {
  /** Index in the port's GID table (the number in `GID[  3]`). */
  readonly index: number;
  /** The GID as printed (`fe80:0000:…` or the compressed IPv6 form newer rdma-core uses). */
  readonly gid: string;
  /** `RoCE v1` / `RoCE v2` when printed after a comma, else null. */
  readonly type: string | null;
}

export interface IbvPort {
  readonly port: number;
  readonly GID?: readonly IbvGid[];
  readonly [field: string]: IbvValue | number | readonly IbvGid[] | undefined;
}

export interface IbvDevice {
  readonly hca_id: string;
  readonly ports: readonly IbvPort[];
  readonly [field: string]: IbvValue | readonly IbvPort[] | undefined;
}

export interface IbvDevinfo {
  readonly devices: readonly IbvDevice[];
  /** ibv_devinfo / libibverbs diagnostics found between the blocks, trimmed, in order. */
  readonly messages: readonly string[];
}
