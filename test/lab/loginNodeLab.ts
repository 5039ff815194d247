// A Slurm cluster behind a login node, as the relay tests need it: one host to SSH to (`login`, no GPU,
// whose gdr holds the key every host authorizes) and compute nodes reached only from there.
import { Lab, LabHostSpec, LabNetwork, startTestLab } from './lab';

export interface LoginNodeLabOptions {
  recordsPath: string;
  network: LabNetwork;
  /** The compute nodes, name → profile: each in its own network namespace, each a Slurm node. */
  nodes: Record<string, string>;
  /** Hosts of the lab outside Slurm (a node only one test reaches). */
  others?: LabHostSpec[];
  readyTimeoutMs?: number;
  /** cgroup.conf ConstrainDevices=yes: a step opens only the GPUs it asked for (slurm.ts). */
  constrainDevices?: boolean;
}

/** Starts `login` and the nodes (Slurm controlled from `login`), as startTestLab does. */
export function startLoginNodeLab(o: LoginNodeLabOptions): Promise<Lab> {
  const nodes = Object.keys(o.nodes);
  return startTestLab({
    hosts: [
      { name: 'login', profile: 'no-gpu', netns: true, login: true },
      ...nodes.map((name) => ({ name, profile: o.nodes[name], netns: true })),
      ...(o.others ?? []),
    ],
    recordsPath: o.recordsPath,
    network: o.network,
    slurm: { controller: 'login', nodes, constrainDevices: o.constrainDevices },
    readyTimeoutMs: o.readyTimeoutMs ?? 60_000,
  });
}
