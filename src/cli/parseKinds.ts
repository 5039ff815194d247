// The kinds `gdr-doctor parse` knows: each names its command, its parser and its summary.
import { parseGpuQuery } from '../core/parsers/gpuQuery';
import { parseIbvDevinfo } from '../core/parsers/ibvDevinfo';
import { parseLscpu } from '../core/parsers/lscpu';
import { parseLsmod } from '../core/parsers/lsmod';
import { parseLspci } from '../core/parsers/lspci';
import { parseModinfo } from '../core/parsers/modinfo';
import { summarizeNcclLog } from '../core/ncclLog';
import { parseNcclTests } from '../core/ncclTests';
import { summarizeNcclTests } from '../core/ncclTests/summaryText';
import { parseNumactl } from '../core/parsers/numactl';
import { parseNvidiaVersion } from '../core/parsers/nvidiaVersion';
import { parseOfedInfo } from '../core/parsers/ofedInfo';
import { parseOsRelease } from '../core/parsers/osRelease';
import { parsePerftest } from '../core/parsers/perftest';
import { Parsed } from '../core/parsers/result';
import { parseShowGids } from '../core/parsers/showGids';
import { parseMlnxQos } from '../core/parsers/mlnxQos';
import { parseSmiQuery } from '../core/parsers/smiQuery';
import { parseTopo } from '../core/parsers/topo';
import { summarizeGpuQuery } from './summary/gpuQuery';
import { summarizeIbvDevinfo } from './summary/ibvDevinfo';
import { summarizeLscpu } from './summary/lscpu';
import { summarizeLsmod } from './summary/lsmod';
import { summarizeLspci } from './summary/lspci';
import { summarizeModinfo } from './summary/modinfo';
import { summarizeNcclLogText } from '../core/ncclLog/summaryText';
import { summarizeNumactl } from './summary/numactl';
import { summarizeNvidiaVersion } from './summary/nvidiaVersion';
import { summarizeOfedInfo } from './summary/ofedInfo';
import { summarizeOsRelease } from './summary/osRelease';
import { summarizeShowGids } from './summary/showGids';
import { summarizeMlnxQos } from './summary/mlnxQos';
import { summarizePerftest } from './summary/perftest';
import { summarizeSmiQuery } from './summary/smiQuery';
import { summarizeTopo } from './summary/topo';
import { summarizeFiInfo, summarizeNcclConf, summarizeTopoXml } from './summary/ncclConfig';
import { parseNcclConfFile } from '../core/probe/ncclConfig';
import { parseFiInfo } from '../core/probe/netPlugin';
import { parseTopoXmlFile } from '../core/topology/nccl/topoXml';

export interface ParseKind {
  readonly kind: string;
  /** The command (or file) whose output this kind reads. */
  readonly source: string;
  readonly parse: (text: string) => Parsed<unknown>;
  readonly summarize: (value: unknown) => string;
}

/** Pairs a parser with its summary while keeping their types tied together. */
function kind<T>(name: string, source: string, parse: (text: string) => Parsed<T>, summarize: (value: T) => string): ParseKind {
  return { kind: name, source, parse, summarize: (value) => summarize(value as T) };
}

export const PARSE_KINDS: readonly ParseKind[] = [
  kind('topo', 'nvidia-smi topo -m', parseTopo, summarizeTopo),
  kind('ibv', 'ibv_devinfo [-v]', parseIbvDevinfo, summarizeIbvDevinfo),
  kind('lscpu', 'lscpu', parseLscpu, summarizeLscpu),
  kind('numactl', 'numactl -H (numactl --hardware)', parseNumactl, summarizeNumactl),
  kind('lsmod', 'lsmod (also as filtered by grep)', (t) => parseLsmod(t, { allowEmpty: true }), summarizeLsmod),
  kind('modinfo', 'modinfo <module>', parseModinfo, summarizeModinfo),
  kind('ofed', 'ofed_info -s', parseOfedInfo, summarizeOfedInfo),
  kind('nvidia-version', 'cat /proc/driver/nvidia/version', parseNvidiaVersion, summarizeNvidiaVersion),
  kind('os-release', 'cat /etc/os-release', parseOsRelease, summarizeOsRelease),
  kind(
    'gpus',
    'nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version --format=csv[,noheader]',
    (t) => parseGpuQuery(t),
    summarizeGpuQuery,
  ),
  kind('smi-q', 'nvidia-smi -q', parseSmiQuery, summarizeSmiQuery),
  kind('lspci', 'lspci -vvv [-s <slot>] (as root: ACS needs it)', parseLspci, summarizeLspci),
  kind('show-gids', "show_gids (the RDMA ports' GID tables, as sysfs holds them)", parseShowGids, summarizeShowGids),
  kind('perftest', "perftest's ib_write_bw (server or client side)", parsePerftest, summarizePerftest),
  kind('nccl-conf', 'cat /etc/nccl.conf (or ~/.nccl.conf)', parseNcclConfFile, summarizeNcclConf),
  kind('fi-info', 'fi_info -p efa (libfabric providers: AWS EFA)', parseFiInfo, summarizeFiInfo),
  kind('mlnx-qos', "mlnx_qos -i <interface> (a RoCE NIC's trust mode, DSCP map and PFC)", parseMlnxQos, summarizeMlnxQos),
  kind(
    'nccl-topo',
    'an NCCL XML topology (NCCL_TOPO_FILE, /var/run/nvidia-topologyd/virtualTopology.xml)',
    (t) => parseTopoXmlFile(t, 'NCCL topology'),
    summarizeTopoXml,
  ),
  // The same reader as `gdr-doctor nccl-log`, for one saved log held in memory.
  kind(
    'nccl-log',
    "NCCL's log of a job run with NCCL_DEBUG=INFO (gdr-doctor nccl-log reads several, streaming)",
    (t) => summarizeNcclLog(t),
    summarizeNcclLogText,
  ),
  kind(
    'nccl-tests',
    'nccl-tests (all_reduce_perf …) as printed, behind mpirun/srun prefixes, or its -J JSON file',
    parseNcclTests,
    summarizeNcclTests,
  ),
];

export function findParseKind(name: string): ParseKind | undefined {
  return PARSE_KINDS.find((k) => k.kind === name);
}
