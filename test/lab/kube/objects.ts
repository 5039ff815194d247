// The objects the lab API server serves, shaped as a real cluster's (sources: objects/README.md):
// GPU nodes as GPU Feature Discovery labels them, the GPU Operator's driver pods built from the
// operator's own rendered DaemonSet (internal/state/testdata/golden), MOFED and validator pods, and
// the two policies. Lists leave kind/apiVersion off their items, as the API server does.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export type Json = Record<string, unknown>;

const OBJECTS = path.join(__dirname, 'objects');
const readJson = (name: string): Json => JSON.parse(fs.readFileSync(path.join(OBJECTS, name), 'utf8')) as Json;

export const OPERATOR_NAMESPACE = 'gpu-operator';
export const NETWORK_NAMESPACE = 'nvidia-network-operator';
const CREATED = '2026-02-18T12:58:02Z';

let rv = 4000;
/** A fresh resourceVersion, as etcd's revision counter gives one per write. */
export const nextResourceVersion = (): string => String(++rv);
const suffix = (): string => crypto.randomBytes(3).toString('hex').slice(0, 5);

export function clusterPolicy(driver: { rdma?: Json; kernelModuleType?: string } = {}): Json {
  const cp = readJson('clusterpolicy.json');
  const spec = cp.spec as { driver: Json };
  if (driver.rdma) spec.driver.rdma = driver.rdma;
  if (driver.kernelModuleType) spec.driver.kernelModuleType = driver.kernelModuleType;
  return cp;
}

export const nicClusterPolicy = (): Json => readJson('nicclusterpolicy.json');

export interface NodeShape {
  readonly name: string;
  /** GPUs GFD labels and the device plugin advertises; 0: a CPU node. */
  readonly gpus: number;
  readonly address: string;
  /** NFD's pci-15b3 label: a Mellanox NIC. */
  readonly mellanox?: boolean;
}

export function node(n: NodeShape): Json {
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': n.name,
    'kubernetes.io/os': 'linux',
  };
  if (n.gpus > 0) {
    Object.assign(labels, {
      'feature.node.kubernetes.io/pci-10de.present': 'true',
      'nvidia.com/gpu.count': String(n.gpus),
      'nvidia.com/gpu.deploy.driver': 'true',
      'nvidia.com/gpu.present': 'true',
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
    });
  }
  if (n.mellanox) labels['feature.node.kubernetes.io/pci-15b3.present'] = 'true';
  const resources = { cpu: '96', memory: '2113464612Ki', pods: '110', ...(n.gpus > 0 ? { 'nvidia.com/gpu': String(n.gpus) } : {}) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: n.name, uid: crypto.randomUUID(), resourceVersion: nextResourceVersion(), creationTimestamp: CREATED, labels },
    spec: {},
    status: {
      addresses: [
        { address: n.address, type: 'InternalIP' },
        { address: n.name, type: 'Hostname' },
      ],
      allocatable: resources,
      capacity: resources,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
      nodeInfo: { kernelVersion: '5.15.0-91-generic', osImage: 'Ubuntu 22.04.3 LTS', kubeletVersion: 'v1.32.3', architecture: 'amd64' },
    },
  };
}

/** A container's status: running, or crash-looping after `restarts` failures. */
export function containerStatus(name: string, image: string, state: 'running' | 'crashloop', restarts = 0, podName = ''): Json {
  const id = `containerd://${crypto.randomBytes(32).toString('hex')}`;
  const base = { name, image, imageID: `${image.split(':')[0]}@sha256:${crypto.randomBytes(32).toString('hex')}`, containerID: id };
  if (state === 'running')
    return { ...base, ready: true, started: true, restartCount: restarts, state: { running: { startedAt: CREATED } }, lastState: {} };
  return {
    ...base,
    ready: false,
    started: false,
    restartCount: restarts,
    state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off 5m0s restarting failed container=${name} pod=${podName}` } },
    lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: CREATED, finishedAt: CREATED, containerID: id } },
  };
}

export interface DriverPodState {
  /** The sidecar's state; undefined: ClusterPolicy has RDMA off, so the pod has no sidecar. */
  readonly peermem?: 'running' | 'crashloop';
  readonly restarts?: number;
}

/** The driver DaemonSet's pod on `nodeName`, from the operator's rendered template (with or without the peermem sidecar). */
export function driverPod(nodeName: string, address: string, state: DriverPodState): Json {
  const template = readJson(state.peermem ? 'driver-pod-template-rdma.json' : 'driver-pod-template-minimal.json');
  const name = `nvidia-driver-daemonset-${suffix()}`;
  const spec: Json = { ...(template.spec as Json), nodeName };
  const containers = (spec.containers as { name: string; image: string }[]).map((c) =>
    c.name === 'nvidia-peermem-ctr' && state.peermem === 'crashloop'
      ? containerStatus(c.name, c.image, 'crashloop', state.restarts ?? 12, `${name}_${OPERATOR_NAMESPACE}`)
      : containerStatus(c.name, c.image, 'running'),
  );
  const init = (spec.initContainers as { name: string; image: string }[]).map((c) => ({
    ...containerStatus(c.name, c.image, 'running'),
    ready: true,
    started: false,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: CREATED, finishedAt: CREATED } },
  }));
  const ready = containers.every((c) => c.ready);
  return pod({
    name,
    namespace: OPERATOR_NAMESPACE,
    labels: {
      app: 'nvidia-driver-daemonset',
      'app.kubernetes.io/component': 'nvidia-driver',
      'nvidia.com/precompiled': 'false',
      'controller-revision-hash': '7c6d7bd86b',
      'pod-template-generation': '1',
    },
    annotations: template.metadata ? ((template.metadata as Json).annotations as Json) : {},
    owner: 'nvidia-driver-daemonset',
    spec,
    address,
    containerStatuses: containers,
    initContainerStatuses: init,
    ready,
  });
}

/** The Network Operator's MOFED (DOCA driver) pod on a node; `ready` false: its probe has not passed. */
export function mofedPod(nodeName: string, address: string, ready: boolean): Json {
  const image = 'nvcr.io/nvstaging/mellanox/doca-driver:doca3.5.0-26.07-0.7.0.0-0';
  const status = { ...containerStatus('mofed-container', image, 'running'), ready };
  return pod({
    name: `mofed-ubuntu22.04-5b7c9b8d6f-ds-${suffix()}`,
    namespace: NETWORK_NAMESPACE,
    labels: { app: 'mofed-ubuntu22.04-5b7c9b8d6f', 'nvidia.com/ofed-driver': '' },
    owner: 'mofed-ubuntu22.04-5b7c9b8d6f-ds',
    spec: { nodeName, hostNetwork: true, containers: [{ name: 'mofed-container', image, securityContext: { privileged: true } }] },
    address,
    containerStatuses: [status],
    initContainerStatuses: [],
    ready,
  });
}

/** The operator's validator pod: its init containers validate the driver, toolkit, CUDA and the plugin. */
export function validatorPod(nodeName: string, address: string, failing?: string): Json {
  const image = 'nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.10.1';
  const inits = ['driver-validation', 'toolkit-validation', 'cuda-validation', 'plugin-validation'];
  const failAt = failing ? inits.indexOf(failing) : -1;
  const initContainerStatuses = inits.map((n, i) =>
    failAt === i
      ? containerStatus(n, image, 'crashloop', 9, '')
      : failAt >= 0 && i > failAt
        ? { ...containerStatus(n, image, 'running'), ready: false, started: false, state: { waiting: { reason: 'PodInitializing' } } }
        : {
            ...containerStatus(n, image, 'running'),
            state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: CREATED, finishedAt: CREATED } },
          },
  );
  const main =
    failAt >= 0
      ? {
          ...containerStatus('nvidia-operator-validator', image, 'running'),
          ready: false,
          started: false,
          state: { waiting: { reason: 'PodInitializing' } },
        }
      : containerStatus('nvidia-operator-validator', image, 'running');
  return pod({
    name: `nvidia-operator-validator-${suffix()}`,
    namespace: OPERATOR_NAMESPACE,
    labels: { app: 'nvidia-operator-validator', 'app.kubernetes.io/part-of': 'gpu-operator' },
    owner: 'nvidia-operator-validator',
    spec: { nodeName, initContainers: inits.map((name) => ({ name, image })), containers: [{ name: 'nvidia-operator-validator', image }] },
    address,
    containerStatuses: [main],
    initContainerStatuses,
    ready: failAt < 0,
    phase: failAt >= 0 ? 'Pending' : 'Running',
  });
}

interface PodParts {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations?: Json;
  owner?: string;
  spec: Json;
  address: string;
  containerStatuses: Json[];
  initContainerStatuses: Json[];
  ready: boolean;
  phase?: string;
}

export function pod(p: PodParts): Json {
  const uid = crypto.randomUUID();
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: p.namespace,
      uid,
      resourceVersion: nextResourceVersion(),
      creationTimestamp: CREATED,
      labels: p.labels,
      ...(p.annotations ? { annotations: p.annotations } : {}),
      ...(p.owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'apps/v1',
                kind: 'DaemonSet',
                name: p.owner,
                uid: crypto.randomUUID(),
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: p.spec,
    status: {
      phase: p.phase ?? 'Running',
      conditions: [
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: p.ready ? 'True' : 'False' },
        { type: 'ContainersReady', status: p.ready ? 'True' : 'False' },
        { type: 'PodScheduled', status: 'True' },
      ],
      hostIP: p.address,
      podIP: p.address,
      startTime: CREATED,
      initContainerStatuses: p.initContainerStatuses,
      containerStatuses: p.containerStatuses,
      qosClass: 'BestEffort',
    },
  };
}
