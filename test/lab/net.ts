// Own-address hosts: one network namespace per host, a veth into bridge gdrbr0, and a
// blackhole route for the lab's /16. Every step is recorded before it is taken.
import { execFileSync } from 'node:child_process';
import { ip, Records } from './records';

export interface NetnsSpec { name: string; veth: string; address: string }

// A bridge with the lab's only host-side address, and a blackhole for the whole /16, so
// nothing meant for a simulated host can leave for a real network if the bridge is gone.
export function setUpBridge(records: Records): void {
  assertAbsent('link', 'gdrbr0');
  assertAbsent('route', '10.250.0.0/16');
  records.add({ kind: 'route', dst: '10.250.0.0/16' });
  ip('route', 'add', 'blackhole', '10.250.0.0/16');
  records.add({ kind: 'bridge', name: 'gdrbr0' });
  ip('link', 'add', 'gdrbr0', 'type', 'bridge');
  ip('addr', 'add', '10.250.0.1/24', 'dev', 'gdrbr0');
  ip('link', 'set', 'gdrbr0', 'up');
}

// Records name only what this run made: something already there is refused, not adopted.
function assertAbsent(kind: 'link' | 'netns' | 'route', name: string): void {
  const args = kind === 'link' ? ['-o', 'link', 'show'] : kind === 'netns' ? ['netns', 'list'] : ['route', 'show', 'table', 'all'];
  const words = execFileSync('ip', args, { encoding: 'utf8' }).split(/[\s:@]+/);
  if (words.includes(name)) throw new Error(`${kind} ${name} exists already and is not this lab run's; is another lab running?`);
}

export function setUpNetns(records: Records, ns: NetnsSpec): void {
  assertAbsent('netns', ns.name);
  assertAbsent('link', ns.veth);
  records.add({ kind: 'netns', name: ns.name });
  ip('netns', 'add', ns.name);
  records.add({ kind: 'veth', name: ns.veth });
  ip('link', 'add', ns.veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns.name);
  ip('link', 'set', ns.veth, 'master', 'gdrbr0', 'up');
  ip('-n', ns.name, 'addr', 'add', `${ns.address}/24`, 'dev', 'eth0');
  ip('-n', ns.name, 'link', 'set', 'eth0', 'up');
  ip('-n', ns.name, 'link', 'set', 'lo', 'up');
}
