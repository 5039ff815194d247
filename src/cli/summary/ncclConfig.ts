// Summaries of NCCL's own configuration files: an nccl.conf, and an XML topology (NCCL_TOPO_FILE).
import { NcclConfEntry } from '../../core/probe/ncclConfig';
import { FiInfoEntry } from '../../core/probe/netPlugin';
import { NCCL_ENV_NAMES } from '../../core/topology/nccl/env';
import { XmlNode, descendants } from '../../core/topology/nccl/topoXml';
import { t } from '../../core/l10n';

const shown = (v: string): string => JSON.stringify(v).slice(1, -1);

/** Each NAME=VALUE line, and whether gdr-doctor's verdicts follow it. */
export function summarizeNcclConf(value: { entries: NcclConfEntry[] }): string {
  if (value.entries.length === 0) return t('nccl.conf: no NAME=VALUE line');
  const lines = value.entries.map((e) => {
    const used = (NCCL_ENV_NAMES as readonly string[]).includes(e.name);
    return `  ${t('line {0}', e.line)}: ${shown(e.name)}=${shown(e.value)}${used ? ` (${t('changes GPUDirect RDMA verdicts')})` : ''}`;
  });
  return [
    t('nccl.conf: {0} setting(s); NCCL takes the first line of each name, after the job environment', value.entries.length),
    ...lines,
  ].join('\n');
}

/** CPUs, switches, GPUs and NICs of an XML topology, by bus address. */
export function summarizeTopoXml(root: XmlNode): string {
  const cpus = descendants(root, 'cpu');
  const lines = [t('NCCL XML topology: {0} CPU(s)', cpus.length)];
  for (const cpu of cpus) {
    lines.push(`  CPU ${shown(cpu.attrs.numaid ?? '?')}`);
    for (const pci of descendants(cpu, 'pci')) {
      const cls = pci.attrs.class ?? '';
      const what = /^0x0604/i.test(cls) ? t('switch') : /^0x03/i.test(cls) ? 'GPU' : /^0x02/i.test(cls) ? 'NIC' : shown(cls);
      lines.push(
        `    ${shown(pci.attrs.busid ?? '?')} ${what} ${shown(pci.attrs.link_speed ?? '')} x${shown(pci.attrs.link_width ?? '?')}`,
      );
    }
  }
  return lines.join('\n');
}

/** libfabric's endpoints: provider, domain (the device), endpoint type. */
export function summarizeFiInfo(value: { entries: FiInfoEntry[] }): string {
  return [
    t('fi_info: {0} endpoint(s)', value.entries.length),
    ...value.entries.map((e) => `  ${shown(e.provider)} ${shown(e.domain)} ${shown(e.type)} (${t('fabric {0}', shown(e.fabric))})`),
  ].join('\n');
}
