// The inputs `npm run bench:parsers` feeds each parser: adversarial text built to a given size from
// real fixture lines (test/fixtures) and near-misses of the lines each parser looks for — one huge
// line, a near-miss header, many lines. See bench/README.md. Every input stays under the parsers'
// 8 MiB input cap (src/core/parsers/result.ts), so the whole text is read, not refused at the door.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseCpuList } from '../src/core/parsers/cpuList';
import { parseGpuQuery } from '../src/core/parsers/gpuQuery';
import { parseHostsFile } from '../src/core/parsers/hostlist';
import { parseIbvDevinfo } from '../src/core/parsers/ibvDevinfo';
import { parseLscpu } from '../src/core/parsers/lscpu';
import { parseLsmod } from '../src/core/parsers/lsmod';
import { parseLspci } from '../src/core/parsers/lspci';
import { parseModinfo } from '../src/core/parsers/modinfo';
import { readNcclLog } from '../src/core/parsers/ncclLog';
import { parseNumactl } from '../src/core/parsers/numactl';
import { parseNvidiaVersion } from '../src/core/parsers/nvidiaVersion';
import { parseOfedInfo } from '../src/core/parsers/ofedInfo';
import { parseOsRelease } from '../src/core/parsers/osRelease';
import { parsePerftest } from '../src/core/parsers/perftest';
import type { Parsed } from '../src/core/parsers/result';
import { parseShowGids } from '../src/core/parsers/showGids';
import { parseSmiQuery } from '../src/core/parsers/smiQuery';
import { parseTopo } from '../src/core/parsers/topo';
import { looksLikeTopoOutput, readTopoDocument } from '../src/core/topology/topoTokens';

const FIXTURES = path.resolve(__dirname, '../test/fixtures');
const KiB = 1024;

export interface ParserCase {
  /** What is parsed, and how the input is adversarial. */
  readonly name: string;
  /** The input at the bench's unit size N, in bytes (the bench also runs 4N). */
  readonly bytes: number;
  readonly build: (bytes: number) => string;
  /** Runs the parser; returns what it made of the input, in a few words (printed once per size). */
  readonly run: (text: string) => string;
}

function fixture(dir: string, name: string): string {
  return fs.readFileSync(path.join(FIXTURES, dir, name), 'utf8');
}

/** The first n lines of a fixture, newline-terminated. */
function head(dir: string, name: string, n: number): string {
  return `${fixture(dir, name).split('\n').slice(0, n).join('\n')}\n`;
}

/** `prefix`, then `unit` repeated to about `bytes` in all, on one line. */
function hugeLine(prefix: string, unit: string, bytes: number, suffix = ''): string {
  return `${prefix}${unit.repeat(Math.max(1, Math.floor((bytes - prefix.length) / unit.length)))}${suffix}\n`;
}

/** `prefix`, then `line` (newline-terminated) repeated to about `bytes` in all. */
function manyLines(prefix: string, line: string, bytes: number): string {
  return prefix + line.repeat(Math.max(1, Math.floor((bytes - prefix.length) / line.length)));
}

/** What a Parsed result came to: "ok" or "refused at line L". */
function outcome(result: Parsed<unknown>): string {
  return result.ok ? 'ok' : `refused at line ${result.error.line}`;
}

const TOPO = fixture('topo', 'seed-xeon-gold-5318y-8gpu-3nic.txt');
const TOPO_HEADER_ROW = TOPO.split('\n').slice(0, 2).join('\n');
const LSCPU = fixture('lscpu', 'seed-xeon-gold-5318y-2socket-old-layout.txt');
const IBV = fixture('ibv', 'mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt');
const LSPCI = head('lspci', 'hgx-h100-pex890xx-cx7-full-vvv-acs-off.txt', 40);

const topoCases: ParserCase[] = [
  {
    name: 'topo: a huge line after the matrix',
    bytes: 128 * KiB,
    build: (b) => TOPO + hugeLine('', 'x', b),
    run: (t) => outcome(parseTopo(t)),
  },
  {
    name: 'topo: a near-miss header of many GPU columns',
    bytes: 128 * KiB,
    build: (b) => `\t${gpuColumns(b)}CPU Affinity\n`,
    run: (t) => outcome(parseTopo(t)),
  },
  {
    name: 'topo: one GPU row of many X cells',
    bytes: 128 * KiB,
    build: (b) => hugeLine(`${TOPO_HEADER_ROW.split('\n')[0]}\nGPU0 `, 'X ', b),
    run: (t) => outcome(parseTopo(t)),
  },
  {
    name: 'topo: many near-miss header lines',
    bytes: 128 * KiB,
    build: (b) => manyLines('', 'GPU0: not a header at all\n', b),
    run: (t) => outcome(parseTopo(t)),
  },
  {
    name: 'topo: many blank-padded lines before the header',
    bytes: 128 * KiB,
    build: (b) => manyLines('', `${' '.repeat(60)}\n`, b) + TOPO,
    run: (t) => outcome(parseTopo(t)),
  },
];

// looksLikeTopoOutput reads at most 512 KiB (DETECT_MAX_CHARS): its sizes stay under that.
const topoTokenCases: ParserCase[] = [
  {
    name: 'topo tokens: detect, many log lines, no header',
    bytes: 100 * KiB,
    build: (b) => manyLines('', 'just some log line\n', b),
    run: (t) => String(looksLikeTopoOutput(t)),
  },
  {
    name: 'topo tokens: detect, one huge near-miss header line',
    bytes: 100 * KiB,
    build: (b) => hugeLine('\t', 'GPU0\tNIC0\t', b),
    run: (t) => String(looksLikeTopoOutput(t)),
  },
  {
    name: 'topo tokens: read a document with a huge row',
    bytes: 128 * KiB,
    build: (b) => TOPO + hugeLine('GPU0 ', 'X ', b),
    run: (t) => (readTopoDocument(t) === null ? 'not topo' : 'a document'),
  },
];

const lscpuCases: ParserCase[] = [
  {
    name: 'lscpu: a huge line without a colon',
    bytes: 128 * KiB,
    build: (b) => hugeLine('Architecture: x86_64\n', 'a ', b),
    run: (t) => outcome(parseLscpu(t)),
  },
  {
    name: 'lscpu: a huge NUMA CPU list',
    bytes: 128 * KiB,
    build: (b) => hugeLine('Architecture: x86_64\nNUMA node0 CPU(s): 0', ',0', b),
    run: (t) => outcome(parseLscpu(t)),
  },
  {
    name: 'lscpu: many near-miss key lines',
    bytes: 128 * KiB,
    build: (b) => manyLines(LSCPU, 'NUMA node CPU(s) x:  \n', b),
    run: (t) => outcome(parseLscpu(t)),
  },
];

const ibvCases: ParserCase[] = [
  {
    name: 'ibv_devinfo: many repeated fields',
    bytes: 128 * KiB,
    build: (b) => manyLines(IBV, '\t\t\tmax_sge:\t\t\t30\n', b),
    run: (t) => outcome(parseIbvDevinfo(t)),
  },
  {
    name: 'ibv_devinfo: a huge line of blanks',
    bytes: 128 * KiB,
    build: (b) => hugeLine('hca_id:\tx\n\ta', ' ', b),
    run: (t) => outcome(parseIbvDevinfo(t)),
  },
  {
    name: 'ibv_devinfo: many hca_id lines',
    bytes: 128 * KiB,
    build: (b) => manyLines('', 'hca_id:\tmlx5_0\n', b),
    run: (t) => outcome(parseIbvDevinfo(t)),
  },
];

const lspciCases: ParserCase[] = [
  {
    name: 'lspci -vvv: many near-miss capability lines',
    bytes: 128 * KiB,
    build: (b) => manyLines(LSPCI, '\tCapabilities: [1a0 v1] Access Control Service\n', b),
    run: (t) => outcome(parseLspci(t)),
  },
  {
    name: 'lspci -vvv: a huge LnkSta line',
    bytes: 128 * KiB,
    build: (b) => LSPCI + hugeLine('\tLnkSta:\tSpeed 16GT/s', ' x', b),
    run: (t) => outcome(parseLspci(t)),
  },
  {
    name: 'lspci -vvv: many near-miss device headers',
    bytes: 128 * KiB,
    build: (b) => manyLines('', '00:00.0:00:00.0 x\n', b),
    run: (t) => outcome(parseLspci(t)),
  },
];

const smiCases: ParserCase[] = [
  {
    name: 'nvidia-smi -q: many indented near-miss lines',
    bytes: 128 * KiB,
    build: (b) => manyLines(head('smi-q', 'h100-80gb-hbm3-x8-driver565.txt', 12), '        Key with no value    \n', b),
    run: (t) => outcome(parseSmiQuery(t)),
  },
  {
    name: 'nvidia-smi -q: a huge banner line',
    bytes: 128 * KiB,
    build: (b) => hugeLine('', '=', b, 'NVSMI LOG'),
    run: (t) => outcome(parseSmiQuery(t)),
  },
  {
    name: 'nvidia-smi --query-gpu: a huge CSV row',
    bytes: 128 * KiB,
    build: (b) => hugeLine('index, name, pci.bus_id\n0, ', 'NVIDIA, ', b),
    run: (t) => outcome(parseGpuQuery(t)),
  },
];

const otherCases: ParserCase[] = [
  {
    name: 'lsmod: many near-miss module lines',
    bytes: 128 * KiB,
    build: (b) => manyLines('Module                  Size  Used by\n', 'mlx5_ib   1 1 a  \n', b),
    run: (t) => outcome(parseLsmod(t)),
  },
  {
    name: 'lsmod: a huge used-by list',
    bytes: 128 * KiB,
    build: (b) => hugeLine('Module                  Size  Used by\nib_core 1 1 ', 'a,', b),
    run: (t) => outcome(parseLsmod(t)),
  },
  {
    name: 'modinfo: a huge hex continuation',
    bytes: 128 * KiB,
    build: (b) => hugeLine('filename: /x.ko\nsig_key: 00:\n\t\t', '00:', b, 'g'),
    run: (t) => outcome(parseModinfo(t)),
  },
  {
    name: 'numactl -H: a huge cpus line',
    bytes: 128 * KiB,
    build: (b) => hugeLine('available: 1 nodes (0)\nnode 0 cpus:', ' 1', b, ' x'),
    run: (t) => outcome(parseNumactl(t)),
  },
  {
    name: 'numactl -H: many CPU continuation lines',
    bytes: 128 * KiB,
    build: (b) => manyLines('available: 1 nodes (0)\nnode 0 cpus: 0\n', '1 2 3 4 5 6 7 8\n', b),
    run: (t) => outcome(parseNumactl(t)),
  },
  {
    name: 'nvidia version: a huge line of version-like tokens',
    bytes: 128 * KiB,
    build: (b) => hugeLine('NVRM version: NVIDIA UNIX ', '1.2.3.', b),
    run: (t) => outcome(parseNvidiaVersion(t)),
  },
  {
    name: 'ofed_info -s: a huge near-miss version',
    bytes: 128 * KiB,
    build: (b) => hugeLine('MLNX_OFED_LINUX-', '1.', b, 'x:'),
    run: (t) => outcome(parseOfedInfo(t)),
  },
  {
    name: 'os-release: many assignments',
    bytes: 128 * KiB,
    build: (b) => manyLines('', 'NAME="Ubuntu"\n', b),
    run: (t) => outcome(parseOsRelease(t)),
  },
  { name: 'perftest: a huge near-miss result row', bytes: 128 * KiB, build: (b) => perftestRow(b), run: (t) => outcome(parsePerftest(t)) },
  {
    name: 'show_gids: a huge near-miss row',
    bytes: 128 * KiB,
    build: (b) => hugeLine('DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\nmlx5_0 1 0 x', ' 1', b, ' v3'),
    run: (t) => outcome(parseShowGids(t)),
  },
  {
    name: 'CPU list: a huge list',
    bytes: 128 * KiB,
    build: (b) => hugeLine('0', ',0-1', b).trim(),
    run: (t) => (parseCpuList(t).ok ? 'ok' : 'refused'),
  },
  {
    name: 'hosts file: many comment lines',
    bytes: 128 * KiB,
    build: (b) => manyLines('', 'gpu01   # a comment   \n', b),
    run: (t) => `${parseHostsFile(t).length} hosts`,
  },
  {
    name: 'NCCL log: many near-miss prefixes',
    bytes: 128 * KiB,
    build: (b) => manyLines('', 'node1:1:2 [0] NCC INFO x\n', b),
    run: (t) => `${readNcclLog(t).lines.length} NCCL lines`,
  },
  {
    name: 'NCCL log: a huge line of near-miss prefixes',
    bytes: 128 * KiB,
    build: (b) => hugeLine('', 'h:1:2 [0] NCCL', b),
    run: (t) => `${readNcclLog(t).lines.length} NCCL lines`,
  },
];

/** GPU0\tGPU1\t… to about `bytes`. */
function gpuColumns(bytes: number): string {
  const names: string[] = [];
  for (let length = 0, i = 0; length < bytes; i++) {
    names.push(`GPU${i}\t`);
    length += names[i].length;
  }
  return names.join('');
}

function perftestRow(bytes: number): string {
  const header = ' #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n';
  return hugeLine(`${header} 65536      5000             `, '1 ', bytes, 'x');
}

export const PARSER_CASES: readonly ParserCase[] = [
  ...topoCases,
  ...topoTokenCases,
  ...lscpuCases,
  ...ibvCases,
  ...lspciCases,
  ...smiCases,
  ...otherCases,
];
