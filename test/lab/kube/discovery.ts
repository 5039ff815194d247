// Discovery documents kubectl reads before any verb (/version, /api, /apis and each group version),
// in the legacy (unaggregated) form: kubectl 1.32 asks for aggregated discovery first and accepts these.
import type { Json } from './objects';

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export const version = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.3',
  gitCommit: '32cc146f75aad04beaaa245a7157eb35063a9f99',
  gitTreeState: 'clean',
  buildDate: '2025-03-11T19:52:21Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export const coreVersions = (address: string): Json => ({
  kind: 'APIVersions',
  versions: ['v1'],
  serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }],
});

export const coreV1: Json = {
  kind: 'APIResourceList',
  groupVersion: 'v1',
  resources: [
    {
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
    },
    { name: 'nodes', singularName: 'node', namespaced: false, kind: 'Node', verbs, shortNames: ['no'] },
    { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs, shortNames: ['po'], categories: ['all'] },
    { name: 'pods/attach', singularName: '', namespaced: true, kind: 'PodAttachOptions', verbs: ['create', 'get'] },
    { name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
    { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
  ],
};

/** The custom resources the operators' CRDs add, by group version. */
export const CUSTOM_GROUPS: Record<
  string,
  { group: string; version: string; resource: string; singular: string; kind: string; shortNames?: string[] }
> = {
  'nvidia.com/v1': { group: 'nvidia.com', version: 'v1', resource: 'clusterpolicies', singular: 'clusterpolicy', kind: 'ClusterPolicy' },
  'mellanox.com/v1alpha1': {
    group: 'mellanox.com',
    version: 'v1alpha1',
    resource: 'nicclusterpolicies',
    singular: 'nicclusterpolicy',
    kind: 'NicClusterPolicy',
  },
};

export function groupList(groupVersions: readonly string[]): Json {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groupVersions.map((gv) => {
      const g = CUSTOM_GROUPS[gv];
      const v = { groupVersion: gv, version: g.version };
      return { name: g.group, versions: [v], preferredVersion: v };
    }),
  };
}

export function groupResources(gv: string): Json {
  const g = CUSTOM_GROUPS[gv];
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: gv,
    resources: [
      { name: g.resource, singularName: g.singular, namespaced: false, kind: g.kind, verbs, storageVersionHash: 'lab' },
      { name: `${g.resource}/status`, singularName: '', namespaced: false, kind: g.kind, verbs: ['get', 'patch', 'update'] },
    ],
  };
}
