// The two operators' policies as gdr-doctor reads them. ClusterPolicy (nvidia.com/v1,
// api/nvidia/v1/clusterpolicy_types.go): spec.driver.rdma {enabled, useHostMofed} (GPUDirectRDMASpec,
// both off by default), spec.driver.kernelModuleType (auto | open | proprietary; auto by default from
// v25.3.0), status.state. NicClusterPolicy (mellanox.com/v1alpha1): spec.ofedDriver, status.state.

export interface PolicyView {
  readonly name: string;
  readonly rdmaEnabled: boolean;
  readonly useHostMofed: boolean;
  /** null: not set (the operator's default applies). */
  readonly kernelModuleType: string | null;
  /** Deprecated before kernelModuleType: `driver.useOpenKernelModules`. */
  readonly useOpenKernelModules: boolean | null;
  readonly state: string | null;
  /** `spec.driver.rdma` as the policy has it, for evidence (`{"enabled":false}`, or `(not set)`). */
  readonly rdmaText: string;
}

export interface NicPolicyView {
  readonly name: string;
  /** spec.ofedDriver is set: the Network Operator installs MOFED / DOCA-OFED in a container. */
  readonly ofedDriver: boolean;
  readonly state: string | null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function policyView(item: unknown): PolicyView | undefined {
  const name = str(obj(obj(item).metadata).name);
  if (name === null) return undefined;
  const driver = obj(obj(obj(item).spec).driver);
  const rdma = obj(driver.rdma);
  return {
    name,
    rdmaEnabled: rdma.enabled === true,
    useHostMofed: rdma.useHostMofed === true,
    kernelModuleType: str(driver.kernelModuleType),
    useOpenKernelModules: typeof driver.useOpenKernelModules === 'boolean' ? driver.useOpenKernelModules : null,
    state: str(obj(obj(item).status).state),
    rdmaText: driver.rdma === undefined ? '(not set)' : JSON.stringify(driver.rdma),
  };
}

export function nicPolicyView(item: unknown): NicPolicyView | undefined {
  const name = str(obj(obj(item).metadata).name);
  if (name === null) return undefined;
  return { name, ofedDriver: obj(obj(item).spec).ofedDriver !== undefined, state: str(obj(obj(item).status).state) };
}
