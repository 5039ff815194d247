// Which XML topology NCCL loads instead of reading sysfs (src/graph/topo.cc ncclTopoGetSystem): the file
// NCCL_TOPO_FILE names, else (from 2.10) /var/run/nvidia-topologyd/virtualTopology.xml when it exists. A
// file that cannot be opened is skipped (ncclTopoGetXmlFromFile returns success), so NCCL reads sysfs.
import { Parsed } from '../../parsers/result';
import { NcclEnv } from './env';
import { NcclRules } from './rules';
import { XmlNode } from './topoXml';

export const VIRTUAL_TOPOLOGY_FILE = '/var/run/nvidia-topologyd/virtualTopology.xml';

export interface TopoFileRead {
  readonly path: string;
  readonly xml: Parsed<XmlNode>;
  /** Longer than the probe's cap: the rest was not read. */
  readonly truncated: boolean;
}

export interface HostTopoFiles {
  /** The files the probe printed. */
  readonly read: readonly TopoFileRead[];
  /** Every path the probe looked for (virtualTopology.xml, each nccl.conf's NCCL_TOPO_FILE): absent from `read` = no such regular file. */
  readonly looked: readonly string[];
}

export type TopoFileChoice =
  /** NCCL reads sysfs (no file, or the file named cannot be opened). */
  | { readonly kind: 'none'; readonly skipped: string | null }
  /** NCCL loads this file. */
  | { readonly kind: 'file'; readonly path: string; readonly via: 'NCCL_TOPO_FILE' | 'virtual'; readonly xml: XmlNode }
  /** NCCL loads a file whose content gdr-doctor did not read, or could not parse: the paths are unknown. */
  | { readonly kind: 'unread'; readonly path: string; readonly why: string };

/** `files` null: the probe did not look (an older collection): sysfs, as far as anything tells. */
export function chooseTopoFile(files: HostTopoFiles | null, env: NcclEnv, rules: NcclRules): TopoFileChoice {
  if (env.topoFile !== null) return named(files, env.topoFile);
  if (!rules.virtualTopology || files === null) return { kind: 'none', skipped: null };
  const virtual = files.read.find((f) => f.path === VIRTUAL_TOPOLOGY_FILE);
  if (!virtual) return { kind: 'none', skipped: null };
  return usable(virtual, 'virtual');
}

function named(files: HostTopoFiles | null, path: string): TopoFileChoice {
  const read = files?.read.find((f) => f.path === path);
  if (read) return usable(read, 'NCCL_TOPO_FILE');
  if (files?.looked.includes(path)) return { kind: 'none', skipped: path };
  return { kind: 'unread', path, why: 'not-read' };
}

function usable(f: TopoFileRead, via: 'NCCL_TOPO_FILE' | 'virtual'): TopoFileChoice {
  if (!f.xml.ok) return { kind: 'unread', path: f.path, why: f.xml.error.message };
  if (f.truncated) return { kind: 'unread', path: f.path, why: 'truncated' };
  return { kind: 'file', path: f.path, via, xml: f.xml.value };
}
