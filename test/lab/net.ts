// Own-address hosts: one network namespace per host, a veth into the lab's bridge, and a
// blackhole route for the lab's /24. Every step is recorded before it is taken. Names and
// addresses derive from the lab's `network`, so labs with different networks run side by side.
import { execFileSync } from 'node:child_process';
import { ip, Records } from './records';

/** A lab's own bridge and subnet: bridge <bridge> with 10.250.<subnet>.1/24, hosts from .11 up. */
export interface LabNetwork {
  bridge: string;
  subnet: number;
}
export const defaultNetwork: LabNetwork = { bridge: 'gdrbr0', subnet: 0 };

export interface NetnsSpec {
  name: string;
  veth: string;
  address: string;
}

// Metric of the blackhole: above the bridge's own (kernel, metric 0) route for the same /24,
// so the bridge wins while it exists and the blackhole catches everything once it is gone.
const blackholeMetric = '4250';
const maxHosts = 244; // .11 … .254

export function checkNetwork(n: LabNetwork): void {
  // Link names are at most 15 bytes; ours go into `ip` argv, so keep them plain.
  if (!/^[a-z][a-z0-9]{0,14}$/.test(n.bridge))
    throw new Error(`network.bridge must be 1-15 of [a-z0-9], starting with a letter: ${n.bridge}`);
  if (!Number.isInteger(n.subnet) || n.subnet < 0 || n.subnet > 255) throw new Error(`network.subnet must be 0-255: ${n.subnet}`);
}

export const subnetOf = (n: LabNetwork) => `10.250.${n.subnet}.0/24`;

/** Namespace, veth (≤ 15 bytes) and address of the index-th own-address host; unique per subnet. */
export function netnsFor(n: LabNetwork, index: number, hostName: string): NetnsSpec {
  if (index >= maxHosts) throw new Error(`at most ${maxHosts} own-address hosts per lab network`);
  return { name: `gdrlab${n.subnet}-${hostName}`, veth: `gdr${n.subnet}v${index}`, address: `10.250.${n.subnet}.${11 + index}` };
}

// A bridge with the lab's only host-side address, and a blackhole for the lab's /24, so
// nothing meant for a simulated host can leave for a real network if the bridge is gone.
export function setUpBridge(records: Records, n: LabNetwork): void {
  const dst = subnetOf(n);
  assertAbsent('link', n.bridge);
  assertAbsent('route', dst);
  records.add({ kind: 'route', dst, metric: Number(blackholeMetric) });
  ip('route', 'add', 'blackhole', dst, 'metric', blackholeMetric);
  records.add({ kind: 'bridge', name: n.bridge });
  ip('link', 'add', n.bridge, 'type', 'bridge');
  ip('addr', 'add', `10.250.${n.subnet}.1/24`, 'dev', n.bridge);
  ip('link', 'set', n.bridge, 'up');
}

// Records name only what this run made: something already there is refused, not adopted.
function assertAbsent(kind: 'link' | 'netns' | 'route', ...names: string[]): void {
  const args = kind === 'link' ? ['-o', 'link', 'show'] : kind === 'netns' ? ['netns', 'list'] : ['route', 'show', 'table', 'all'];
  const words = new Set(execFileSync('ip', args, { encoding: 'utf8' }).split(/[\s:@]+/));
  const there = names.find((n) => words.has(n));
  if (there) throw new Error(`${kind} ${there} exists already and is not this lab run's; is another lab running on this network?`);
}

/**
 * Creates every namespace and veth in one `ip -batch` (a few ms for 32 hosts), all recorded
 * first. The inside (address on eth0, links up) is hostinit.sh's job: it runs in the namespace.
 */
export function setUpNetns(records: Records, bridge: string, all: readonly NetnsSpec[]): void {
  if (all.length === 0) return;
  assertAbsent('netns', ...all.map((ns) => ns.name));
  assertAbsent('link', ...all.map((ns) => ns.veth));
  records.addAll(all.flatMap((ns) => [{ kind: 'netns', name: ns.name } as const, { kind: 'veth', name: ns.veth } as const]));
  const lines = all.flatMap((ns) => [
    `netns add ${ns.name}`,
    `link add ${ns.veth} type veth peer name eth0 netns ${ns.name}`,
    `link set ${ns.veth} master ${bridge} up`,
  ]);
  execFileSync('ip', ['-batch', '-'], { input: lines.join('\n') + '\n', stdio: ['pipe', 'ignore', 'pipe'] });
}
