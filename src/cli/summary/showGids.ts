import { GidEntry } from '../../core/parsers/showGids';

/** One line per port: its GIDs as index:version (IPv4-mapped entries marked), as show_gids groups them. */
export function summarizeShowGids(value: { gids: GidEntry[] }): string {
  if (value.gids.length === 0) return 'show_gids: no GID listed.';
  const ports = new Map<string, GidEntry[]>();
  for (const g of value.gids) ports.set(`${g.device}:${g.port}`, [...(ports.get(`${g.device}:${g.port}`) ?? []), g]);
  const lines = [`show_gids: ${value.gids.length} GID(s) on ${ports.size} port(s)`];
  for (const [port, gids] of ports) {
    lines.push(`  ${port.padEnd(12)} ${gids.map(gidLabel).join(' ')}`);
  }
  return lines.join('\n');
}

/** One GID as `index:vVERSION`, marked when it is an IPv4-mapped or a link-local address. */
function gidLabel(g: GidEntry): string {
  const kind = g.gid.startsWith('0000:0000:0000:0000:0000:ffff:') ? '(IPv4)' : g.gid.startsWith('fe80:') ? '(link-local)' : '';
  return `${g.index}:v${g.roceVersion ?? '?'}${kind}`;
}
