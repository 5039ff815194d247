// The parts of Kubernetes objects gdr-doctor reads, from kubectl's `-o json`: a node's GPU labels, a
// pod's phase and each container's state (waiting/terminated reasons, restarts). Parsed defensively:
// the JSON comes from a cluster, so every field is checked, never trusted to exist.

export interface ContainerView {
  readonly name: string;
  readonly ready: boolean;
  readonly restartCount: number;
  readonly state: 'running' | 'waiting' | 'terminated' | 'unknown';
  /** The waiting or terminated reason (CrashLoopBackOff, Error, Completed, PodInitializing…). */
  readonly reason?: string;
  readonly message?: string;
  /** The last terminated instance (a crash loop's previous run). */
  readonly lastTerminated?: { readonly reason?: string; readonly exitCode?: number };
}

export interface PodView {
  readonly name: string;
  readonly namespace: string;
  readonly node: string;
  readonly phase: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly containers: readonly ContainerView[];
  readonly initContainers: readonly ContainerView[];
}

export interface NodeView {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** status.allocatable["nvidia.com/gpu"], 0 when absent. */
  readonly allocatableGpus: number;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v))) if (typeof x === 'string') out[k] = x;
  return out;
}

/** The items of a `kubectl get … -o json` list; throws when the text is not one. */
export function listItems(json: string, what: string): unknown[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (e) {
    throw new Error(`${what}: kubectl's output is not JSON (${(e as Error).message})`);
  }
  const items = obj(doc).items;
  if (!Array.isArray(items)) throw new Error(`${what}: kubectl's output has no "items" list`);
  return items;
}

export function nodeView(item: unknown): NodeView | undefined {
  const meta = obj(obj(item).metadata);
  const name = str(meta.name);
  if (name === undefined) return undefined;
  const gpus = Number(str(obj(obj(obj(item).status).allocatable)['nvidia.com/gpu']) ?? '0');
  return { name, labels: stringMap(meta.labels), allocatableGpus: Number.isFinite(gpus) ? gpus : 0 };
}

/** A node with an NVIDIA GPU: labelled by GPU Feature Discovery, or offering nvidia.com/gpu. */
export function hasGpu(n: NodeView): boolean {
  return n.labels['nvidia.com/gpu.present'] === 'true' || n.allocatableGpus > 0;
}

function containerView(item: unknown): ContainerView {
  const c = obj(item);
  const state = obj(c.state);
  const kind = state.running ? 'running' : state.waiting ? 'waiting' : state.terminated ? 'terminated' : 'unknown';
  const detail = obj(state.waiting ?? state.terminated);
  const last = obj(obj(c.lastState).terminated);
  const restarts = Number(c.restartCount);
  return {
    name: str(c.name) ?? '?',
    ready: c.ready === true,
    restartCount: Number.isFinite(restarts) ? restarts : 0,
    state: kind,
    ...(str(detail.reason) ? { reason: str(detail.reason) } : {}),
    ...(str(detail.message) ? { message: str(detail.message) } : {}),
    ...(Object.keys(last).length > 0
      ? { lastTerminated: { reason: str(last.reason), exitCode: typeof last.exitCode === 'number' ? last.exitCode : undefined } }
      : {}),
  };
}

export function podView(item: unknown): PodView | undefined {
  const p = obj(item);
  const meta = obj(p.metadata);
  const name = str(meta.name);
  if (name === undefined) return undefined;
  const status = obj(p.status);
  return {
    name,
    namespace: str(meta.namespace) ?? 'default',
    node: str(obj(p.spec).nodeName) ?? '',
    phase: str(status.phase) ?? 'Unknown',
    labels: stringMap(meta.labels),
    containers: arr(status.containerStatuses).map(containerView),
    initContainers: arr(status.initContainerStatuses).map(containerView),
  };
}

/** A container that keeps failing: CrashLoopBackOff, or restarted and not ready. */
export function crashLooping(c: ContainerView): boolean {
  return c.reason === 'CrashLoopBackOff' || (!c.ready && c.restartCount > 0 && c.state !== 'running');
}

/** `name: waiting CrashLoopBackOff, 12 restarts, last exit 1 (Error)`: a container's state as evidence. */
export function containerLine(c: ContainerView): string {
  const parts = [`${c.name}: ${c.state}${c.reason ? ` ${c.reason}` : ''}`, `ready ${c.ready}`, `restarts ${c.restartCount}`];
  if (c.lastTerminated) parts.push(`last exit ${c.lastTerminated.exitCode ?? '?'} (${c.lastTerminated.reason ?? '?'})`);
  return parts.join(', ');
}
