// Reads the file nccl-tests writes with -J (NVIDIA/nccl-tests src/util.cu, JSON_FILE_VERSION 3: version,
// args, env, nccl_version, config {…, devices}, results [{size, count, type, redop, root, out_of_place,
// in_place}], out_of_bounds, average_bus_bandwidth, errors). nccl-tests writes it as the run goes, so a
// run that was killed leaves it unterminated: that is an error naming where it stops, and the caller
// reads the text table instead. Every field is checked; `env` (the machine's whole environment) is not kept.
import { fail, ok, Parsed } from '../parsers/result';
import { testNameIn } from './parseText';
import type { NcclTestsDevice, NcclTestsPerf, NcclTestsRow, NcclTestsRun } from './types';
import { releaseOfCode } from './version';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function readNcclTestsJson(text: string): Parsed<NcclTestsRun> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return fail(
      lineAt(text, (e as Error).message),
      `not whole JSON (a run stopped before nccl-tests closed its -J file?): ${(e as Error).message}`,
    );
  }
  if (!isObject(doc) || !Array.isArray(doc.results))
    return fail(1, 'JSON without a "results" list: not the file nccl-tests writes with -J');
  const config = isObject(doc.config) ? doc.config : {};
  const devices = (Array.isArray(config.devices) ? config.devices : []).map(deviceOf).filter((d): d is NcclTestsDevice => d !== null);
  const results: NcclTestsRow[] = [];
  const bad: number[] = [];
  const rows: unknown[] = doc.results;
  rows.forEach((r, i) => {
    const row = rowOf(r);
    if (row) results.push(row);
    else bad.push(i);
  });
  const code = num(doc.nccl_version);
  const avg = isObject(doc.average_bus_bandwidth) ? num(doc.average_bus_bandwidth.bandwidth) : null;
  const oob = isObject(doc.out_of_bounds) ? doc.out_of_bounds : null;
  const args = Array.isArray(doc.args) ? doc.args.filter((a): a is string => typeof a === 'string') : [];
  return ok({
    source: 'json',
    test: args.length > 0 ? testNameIn(args[0]) : null,
    nccl_tests_version: null,
    nccl_version: code,
    nccl_release: code === null ? null : releaseOfCode(code),
    layout: 'new',
    config: { ngpus: num(config.ngpus), minimum_bytes: num(config.minimum_bytes), maximum_bytes: num(config.maximum_bytes) },
    devices,
    hosts: [...new Set(devices.map((d) => d.hostname))],
    results,
    out_of_bounds:
      oob && num(oob.count) !== null ? { count: num(oob.count) as number, okay: oob.okay === 'true' || oob.okay === true } : null,
    average_bus_bandwidth: avg,
    errors: (Array.isArray(doc.errors) ? doc.errors : []).filter((e): e is string => typeof e === 'string' && e !== '').slice(0, 50),
    problems: bad.slice(0, 200).map((i) => ({
      line: 1,
      kind: 'garbled' as const,
      text: JSON.stringify(rows[i]).slice(0, 200),
      why: `results[${i}] is not a result`,
    })),
    concluded: avg !== null,
    lines: text.split('\n').length,
    truncated: false,
  });
}

function deviceOf(d: unknown): NcclTestsDevice | null {
  if (!isObject(d)) return null;
  const rank = num(d.rank);
  const hostname = str(d.hostname);
  const device = num(d.device);
  if (rank === null || hostname === null || device === null) return null;
  return {
    rank,
    group: num(d.group),
    pid: num(d.pid),
    hostname,
    device,
    device_hex: str(d.device_hex) ?? '',
    device_info: str(d.device_info) ?? '',
  };
}

function rowOf(r: unknown): NcclTestsRow | null {
  if (!isObject(r)) return null;
  const size = num(r.size);
  const count = num(r.count);
  const type = str(r.type);
  if (size === null || count === null || type === null) return null;
  const root = str(r.root);
  const out = perfOf(r.out_of_place);
  const inPlace = perfOf(r.in_place);
  if (out === undefined || inPlace === undefined) return null;
  return {
    size,
    count,
    type,
    redop: str(r.redop),
    root: root !== null && /^\s*-?\d+$/.test(root) ? Number(root) : num(r.root),
    out_of_place: out,
    in_place: inPlace,
    line: 1,
  };
}

/** undefined: present but not a result; null: absent or null (writeBenchMarkLineNullBody). */
function perfOf(p: unknown): NcclTestsPerf | null | undefined {
  if (p === undefined || p === null) return null;
  if (!isObject(p)) return undefined;
  const time = num(p.time) ?? num(p.cpu_time);
  const alg = num(p.alg_bw);
  const bus = num(p.bus_bw);
  if (time === null || alg === null || bus === null) return undefined;
  return { time, alg_bw: alg, bus_bw: bus, nwrong: num(p.nwrong) };
}

/** V8 says "… in JSON at position N": the 1-based line of N. */
function lineAt(text: string, message: string): number {
  const m = /position (\d+)/.exec(message);
  if (!m) return 1;
  const at = Math.min(Number(m[1]), text.length);
  let line = 1;
  for (let i = 0; i < at; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
