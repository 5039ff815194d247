// What makes the lab's hosts a cluster: every own-address host's name in every host's
// /etc/hosts, and login nodes whose user gdr holds a key authorized for gdr everywhere
// plus a known_hosts with every host's key (strict checking stays on), so real pdsh,
// clush and ssh work from there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chownTree } from './etc';

export interface ClusterHost {
  name: string;
  /** Host dir (<lab>/hosts/<name>). */
  h: string;
  address: string;
  port: number;
  /** Own network namespace (port 22 on its own address). */
  netns: boolean;
  login: boolean;
  /** Key type and base64 blob of its current host key. */
  hostKey: string;
}

/** known_hosts line under the host's name and its address, as OpenSSH writes non-22 ports. */
export function knownHostsLine(c: Pick<ClusterHost, 'name' | 'address' | 'port' | 'hostKey'>, withName: boolean): string {
  const pattern = (n: string) => (c.port === 22 ? n : `[${n}]:${c.port}`);
  return `${[...(withName ? [c.name] : []), c.address].map(pattern).join(',')} ${c.hostKey}`;
}

/**
 * Lines for a host's /etc/hosts: every own-address host under its address; a loopback host
 * keeps Debian's `127.0.1.1 <name>` for itself (the other loopback hosts are all 127.0.0.1
 * on their own ports: no name can say that).
 */
export function etcHostsLines(
  self: Pick<ClusterHost, 'name' | 'netns'>,
  all: readonly Pick<ClusterHost, 'name' | 'netns' | 'address'>[],
): string {
  return (
    (self.netns ? '' : `127.0.1.1\t${self.name}\n`) +
    all
      .filter((c) => c.netns)
      .map((c) => `${c.address}\t${c.name}\n`)
      .join('')
  );
}

/** <h>/home/gdr/.ssh of each login node; hostinit.sh copies it into the host's private /home. */
export function writeLoginHomes(hosts: readonly ClusterHost[], clusterKey: string): void {
  const knownHosts = hosts.map((c) => knownHostsLine(c, true) + '\n').join('');
  for (const c of hosts.filter((x) => x.login)) {
    const home = path.join(c.h, 'home', 'gdr');
    if (!fs.existsSync(home)) throw new Error(`login node ${c.name} has no user gdr`);
    const ssh = path.join(home, '.ssh');
    fs.mkdirSync(ssh, { mode: 0o700 });
    fs.copyFileSync(clusterKey, path.join(ssh, 'id_ed25519'));
    fs.chmodSync(path.join(ssh, 'id_ed25519'), 0o600);
    fs.copyFileSync(clusterKey + '.pub', path.join(ssh, 'id_ed25519.pub'));
    fs.writeFileSync(path.join(ssh, 'known_hosts'), knownHosts, { mode: 0o644 });
    const { uid, gid } = fs.statSync(home);
    chownTree(ssh, uid, gid);
  }
}
