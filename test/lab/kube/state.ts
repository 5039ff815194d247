// The lab cluster's objects and the little of the operators' behaviour the fixes' verification needs:
// the driver pod's peermem sidecar runs the real `modprobe nvidia_peermem` in the node's lab host (so
// it runs or crash-loops as that host's kernel state says), a ClusterPolicy patch that turns RDMA on
// rolls the driver pods with the sidecar, and a deleted driver pod comes back under a new name, its
// driver container rebuilt against the node's current MOFED (the lab drops the host's profile
// `modprobe-error` for nvidia_peermem: SIMULATED, as the operator's rebuild is).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Lab, LabHost } from '../lab';
import { sshSpawn } from './execBridge';
import { clusterPolicy, driverPod, Json, mofedPod, nextResourceVersion, nicClusterPolicy, node, validatorPod } from './objects';

export interface KubeNodeSpec {
  /** The node's name; its lab host is `host` (default: the lab host of that name). */
  readonly name: string;
  readonly host?: string;
  /** Default 8; 0: a CPU node. */
  readonly gpus?: number;
  /** The GPU Operator's driver pod runs there (default true where there are GPUs). */
  readonly driverPod?: boolean;
  /** The Network Operator's MOFED pod there, ready or not. */
  readonly mofed?: 'ready' | 'not-ready';
  /** The validator pod there: 'ok', or the init container that fails. */
  readonly validator?: 'ok' | 'driver-validation' | 'toolkit-validation' | 'cuda-validation' | 'plugin-validation';
}

export interface KubeClusterSpec {
  readonly nodes: readonly KubeNodeSpec[];
  /** null: no GPU Operator (no ClusterPolicy CRD). */
  readonly clusterPolicy?: { readonly rdma?: Json; readonly kernelModuleType?: string } | null;
  readonly nicClusterPolicy?: boolean;
}

type Logs = Map<string, { current: string; previous?: string }>;

const PEERMEM_OK =
  'waiting for mellanox ofed and nvidia drivers to be installed\nsuccessfully loaded nvidia-peermem module, now waiting for signal\n';

export class KubeClusterState {
  nodes: Json[] = [];
  pods: Json[] = [];
  clusterPolicy: Json | undefined;
  nicClusterPolicy: Json | undefined;
  readonly logs: Logs = new Map();

  constructor(
    private readonly lab: Lab,
    readonly spec: KubeClusterSpec,
  ) {}

  hostOf(nodeName: string): LabHost {
    const s = this.spec.nodes.find((n) => n.name === nodeName);
    return this.lab.host(s?.host ?? nodeName);
  }

  async build(): Promise<void> {
    if (this.spec.clusterPolicy !== null) this.clusterPolicy = clusterPolicy(this.spec.clusterPolicy ?? {});
    if (this.spec.nicClusterPolicy) this.nicClusterPolicy = nicClusterPolicy();
    for (const n of this.spec.nodes) {
      const address = this.hostOf(n.name).address;
      const gpus = n.gpus ?? 8;
      this.nodes.push(node({ name: n.name, gpus, address, mellanox: true }));
      if (n.mofed) this.pods.push(mofedPod(n.name, address, n.mofed === 'ready'));
      if (n.validator) this.pods.push(validatorPod(n.name, address, n.validator === 'ok' ? undefined : n.validator));
      if (this.clusterPolicy && gpus > 0 && n.driverPod !== false) await this.startDriverPod(n.name);
    }
  }

  rdmaEnabled(): boolean {
    const driver = ((this.clusterPolicy?.spec as Json | undefined)?.driver ?? {}) as { rdma?: { enabled?: boolean } };
    return driver.rdma?.enabled === true;
  }

  /** The driver pod on the node: with RDMA on, its sidecar's fate is the host's real modprobe. */
  async startDriverPod(nodeName: string): Promise<Json> {
    const host = this.hostOf(nodeName);
    let state: { peermem?: 'running' | 'crashloop' } = {};
    let log: { current: string; previous?: string } | undefined;
    if (this.rdmaEnabled()) {
      const r = await this.inHost(host, ['modprobe', 'nvidia_peermem']);
      state = { peermem: r.code === 0 ? 'running' : 'crashloop' };
      // The driver container's reload_nvidia_peermem prints modprobe's error, then this (NVIDIA/gpu-operator#2868).
      log =
        r.code === 0
          ? { current: PEERMEM_OK }
          : { current: '', previous: `DRIVER_ARCH is x86_64\n${r.stderr}failed to load nvidia-peermem module\n` };
    }
    const p = driverPod(nodeName, host.address, state);
    this.pods.push(p);
    const name = (p.metadata as { name: string }).name;
    if (log) this.logs.set(`${name}/nvidia-peermem-ctr`, log);
    this.logs.set(`${name}/nvidia-driver-ctr`, { current: 'DRIVER_ARCH is x86_64\nDone, now waiting for signal\n' });
    return p;
  }

  /** DELETE of a driver pod: the DaemonSet starts another (its driver rebuilt against the host's current MOFED). */
  async restartDriverPod(p: Json): Promise<void> {
    const nodeName = (p.spec as { nodeName: string }).nodeName;
    this.pods = this.pods.filter((x) => x !== p);
    fs.rmSync(path.join(this.hostOf(nodeName).hostDir, 'prof', 'modprobe-error', 'nvidia_peermem'), { force: true });
    await this.startDriverPod(nodeName);
  }

  /** A merge patch of the ClusterPolicy: RDMA turned on or off rolls every driver pod. */
  async patchClusterPolicy(patch: Json): Promise<void> {
    if (!this.clusterPolicy) return;
    const before = this.rdmaEnabled();
    this.clusterPolicy = mergePatch(this.clusterPolicy, patch) as Json;
    const meta = this.clusterPolicy.metadata as { generation: number; resourceVersion: string };
    meta.generation += 1;
    meta.resourceVersion = nextResourceVersion();
    if (before === this.rdmaEnabled()) return;
    for (const p of this.pods.filter(isDriverPod)) {
      this.pods = this.pods.filter((x) => x !== p);
      await this.startDriverPod((p.spec as { nodeName: string }).nodeName);
    }
  }

  inHost(host: LabHost, argv: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = sshSpawn(this.lab.sshConfigPath, host.name, argv);
      let stderr = '';
      child.stderr?.on('data', (d) => (stderr += d));
      child.stdin?.end();
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }
}

export const isDriverPod = (p: Json): boolean =>
  ((p.metadata as { labels?: Record<string, string> }).labels ?? {})['app.kubernetes.io/component'] === 'nvidia-driver';

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Json = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [k, v] of Object.entries(patch as Json)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
