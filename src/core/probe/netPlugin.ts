// Network plugins: NCCL first dlopen()s `libnccl-net.so` (or `libnccl-net-<name>.so` for NCCL_NET_PLUGIN=<name>)
// through the dynamic linker, and uses it before its own IB and Socket transports (NVIDIA/nccl v2.30.7-1
// src/plugin/net.cc initPluginLibsOnceFunc, src/plugin/plugin_open.cc). AWS EFA devices are reached only
// through such a plugin (aws-ofi-nccl over libfabric's efa provider). The probe lists the plugin libraries the
// linker cache and the usual install folders hold, and asks libfabric for its efa provider; read-only.
import { Parsed, fail, ok, quote, readLines } from '../parsers/result';

/** Install folders of the common plugins (aws-ofi-nccl by the EFA installer and DLAMIs; HPC-X's SHARP plugin). */
const PLUGIN_DIRS = [
  '/opt/amazon/ofi-nccl/lib',
  '/opt/amazon/ofi-nccl/lib/*-linux-gnu',
  '/opt/aws-ofi-nccl/lib',
  '/usr/local/lib',
  '/opt/hpcx/nccl_rdma_sharp_plugin/lib',
];
const MAX_LIBRARIES = 64;

export const NET_PLUGIN_COMMAND =
  `{ ldconfig -p 2>/dev/null | sed -n 's/^.*=> \\(.*libnccl-net[^/]*\\.so\\)$/\\1/p'; ` +
  `for f in ${PLUGIN_DIRS.map((d) => `${d}/libnccl-net*.so`).join(' ')}; do [ -f "$f" ] && echo "$f"; done; } | head -n ${MAX_LIBRARIES}`;

/**
 * libfabric's efa provider (fi_info is in /opt/amazon/efa/bin where the EFA installer puts it). Only where the
 * efa driver is loaded: elsewhere fi_info is absent or fails ("fi_getinfo: -61"), which says nothing about GDR.
 */
export const FI_INFO_COMMAND = '[ -d /sys/module/efa ] || exit 0; PATH="$PATH:/opt/amazon/efa/bin"; fi_info -p efa';

/** The plugin libraries found, each path once. */
export function parseNetPlugins(text: string): Parsed<{ libraries: string[] }> {
  const read = readLines(text, 'NCCL network plugin libraries');
  if (!read.ok) return read;
  const libraries: string[] = [];
  for (const [i, line] of read.value.entries()) {
    const path = line.trim();
    if (path === '') continue;
    if (!/^\/[^\0]{0,4095}\/libnccl-net[^/]*\.so$/.test(path))
      return fail(i + 1, `NCCL network plugin libraries: expected a path to libnccl-net*.so, found ${quote(path)}`);
    if (!libraries.includes(path)) libraries.push(path);
  }
  return ok({ libraries });
}

export interface FiInfoEntry {
  readonly provider: string;
  readonly fabric: string;
  readonly domain: string;
  readonly type: string;
}

/** `fi_info -p efa`: one block per endpoint (`provider:` then indented `fabric:`, `domain:`, `version:`, `type:`, `protocol:`). */
export function parseFiInfo(text: string): Parsed<{ entries: FiInfoEntry[] }> {
  const read = readLines(text, 'fi_info');
  if (!read.ok) return read;
  const entries: Record<string, string>[] = [];
  for (const [i, line] of read.value.entries()) {
    if (line.trim() === '') continue;
    const m = /^(\s*)([a-z_]+):\s*(.*)$/.exec(line);
    if (!m) return fail(i + 1, `fi_info: expected "name: value", found ${quote(line)}`);
    if (m[1] === '' && m[2] === 'provider') entries.push({ provider: m[3].trim() });
    else if (entries.length === 0) return fail(i + 1, `fi_info: expected "provider:" first, found ${quote(line)}`);
    else if (m[1].length <= 4 && !(m[2] in entries[entries.length - 1])) entries[entries.length - 1][m[2]] = m[3].trim();
  }
  return ok({
    entries: entries.map((e) => ({ provider: e.provider, fabric: e.fabric ?? '', domain: e.domain ?? '', type: e.type ?? '' })),
  });
}
