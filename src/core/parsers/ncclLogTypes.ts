// What gdr-doctor reads from NCCL's own log (NCCL_DEBUG=INFO): one record per NCCL message, located
// in the file, with the header NCCL printed before it and what the message says. The record is the
// same for every consumer: the CLI's summary, and the editor's line colours, hovers and diagnostics.

/** NCCL's debug levels that print a message (src/debug.cc); VERSION is "NCCL version …" on its own. */
export type NcclLevel = 'INFO' | 'WARN' | 'TRACE' | 'VERSION';

/** Where one NCCL message sits in the log, and the `host:pid:tid [dev]` header NCCL wrote before it. */
export interface NcclLineHead {
  /** 1-based line in the file. */
  readonly line: number;
  /** 0-based column where NCCL's own text starts, after any launcher prefix (`0: `, `[1,0]<stdout>:`, `[rank0]:`, a timestamp). */
  readonly column: number;
  /** 0-based column where the message starts (after `NCCL INFO `). */
  readonly messageColumn: number;
  readonly host: string | null;
  readonly pid: number | null;
  readonly tid: number | null;
  /** The CUDA device of the thread that printed it (`[dev]`). */
  readonly dev: number | null;
  readonly level: NcclLevel;
  /** WARN and TRACE name where NCCL printed them: `file:line` (a function name before 2.26). */
  readonly origin: string | null;
  /** The message stops early: another process's text follows on the same line, or the file ends there. */
  readonly cut: boolean;
  /** Ray printed this line for it and `rayFolded` more like it (`[repeated Nx across cluster]`); 0 otherwise. */
  readonly rayFolded: number;
}

/** One device of a `NET/IB : Using [0]mlx5_0:1/IB …` or `NET/Socket : Using [0]eth0:10.0.0.1<0>` line. */
export interface NcclNetDevice {
  /** The index NCCL uses for it in `via NET/<net>/<index>`. */
  readonly index: number;
  readonly name: string;
  /** IB: the port number; Socket: null. */
  readonly port: number | null;
  /** IB: `IB` or `RoCE` (link layer); Socket: the address as printed. */
  readonly link: string;
}

/** The side of a connection: a rank and what NCCL printed in brackets after it (busId in hex before 2.18.3, the NVML device after). */
export interface NcclEndpoint {
  readonly rank: number;
  readonly tag: string | null;
}

/** The network part of `via NET/<net>/<dev>[(<proxy rank>)][/GDRDMA[(PCI)]][/Shared]`. */
export interface NcclNetPath {
  /** The net's name as printed (`IB`, `Socket`, `AWS Libfabric`, `IBext_v8`, …). */
  readonly name: string;
  readonly dev: number;
  /** PXN: the local rank whose GPU sends for this one over NVLink (the number in parentheses). */
  readonly proxyRank: number | null;
  readonly gdr: boolean;
  /** `/GDRDMA(PCI)` (≥ 2.27): GPUDirect RDMA forced through PCIe on a C2C (Grace) system. */
  readonly gdrPci: boolean;
  readonly shared: boolean;
}

export interface NcclConnection {
  /** `Ring` up to 2.6; `Channel` from 2.7; `CollNet`/`Coll` for the collective network. */
  readonly style: 'Ring' | 'Channel' | 'CollNet' | 'Coll';
  readonly channel: number;
  readonly connIndex: number | null;
  readonly from: NcclEndpoint;
  /** null for CollNet lines, which name only the local rank. */
  readonly to: NcclEndpoint | null;
  readonly direction: 'send' | 'receive' | null;
  /** The transport's first word: NET, P2P, SHM, COLLNET; `SHM` also for the old "direct shared memory". */
  readonly transport: string;
  /** Everything after `via `, as printed. */
  readonly via: string;
  readonly net: NcclNetPath | null;
}

export type NcclMessage =
  | { readonly kind: 'version'; readonly nccl: string; readonly cuda: string | null }
  | { readonly kind: 'cuda-driver'; readonly version: number }
  | { readonly kind: 'network'; readonly name: string }
  | {
      readonly kind: 'net-devices';
      readonly net: string;
      /** false for "NET/<net> : No device found."; a "Using" line whose list did not parse is not that. */
      readonly found: boolean;
      readonly devices: readonly NcclNetDevice[];
      readonly relaxedOrdering: boolean;
      readonly oob: string | null;
    }
  | {
      readonly kind: 'hca-gdr';
      readonly net: string;
      readonly hca: number;
      readonly name: string;
      readonly enabled: boolean;
      /** Plugins that say how: `DMABUF` or `nvidia-peermem`. */
      readonly mechanism: string | null;
      /** A reason in parentheses after the name (`no module`, `no module or not supported by GPU`). */
      readonly reason: string | null;
    }
  | { readonly kind: 'gpu-dmabuf'; readonly dev: number }
  /** "Made virtual device [n] name=…": `NET/<net>/<n>` is this device (one NIC, or several merged with `+`). */
  | { readonly kind: 'virtual-nic'; readonly net: string; readonly index: number; readonly name: string }
  | {
      readonly kind: 'pair-gdr';
      /** As printed: a busId in hex (2.5–2.24), a rank (2.25–2.29), `GPU/0-1b000 (rank 0)` (2.30 TRACE), `0[0]` (2.4). */
      readonly gpu: string;
      /** As printed: the HCA index (`%d` before 2.21), a net id in hex (`%lx`, 2.21–2.28), `<system>-<dev>` (2.29+). */
      readonly hca: string;
      readonly enabled: boolean;
      readonly distance: number | null;
      readonly threshold: number | null;
      readonly read: boolean | null;
      readonly mode: string | null;
    }
  | ({ readonly kind: 'connection' } & NcclConnection)
  | {
      readonly kind: 'comm';
      readonly state: 'START' | 'COMPLETE';
      readonly rank: number;
      readonly nranks: number;
      readonly cudaDev: number;
      readonly nvmlDev: number | null;
      readonly busId: string | null;
    }
  | { readonly kind: 'rings-connected'; readonly pxn: boolean | null; readonly gdr: boolean | null }
  | { readonly kind: 'env'; readonly name: string; readonly value: string }
  /** NCCL turned GPUDirect RDMA off and said why in words (a plugin: "disabling GDR"). */
  | { readonly kind: 'gdr-off'; readonly text: string }
  | { readonly kind: 'plugin'; readonly text: string }
  | { readonly kind: 'topology'; readonly text: string }
  | { readonly kind: 'warn'; readonly text: string }
  | { readonly kind: 'info'; readonly text: string };

export type NcclMessageKind = NcclMessage['kind'];

/** One NCCL message of the log: where it is, who printed it, what it says. */
export type NcclLogLine = NcclLineHead & { readonly message: NcclMessage };
