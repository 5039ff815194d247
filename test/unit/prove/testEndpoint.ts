// One GPU↔NIC endpoint of a proof for the unit tests: a GPU and its IB port, values overridden per test.
import type { ProveEndpoint } from '../../../src/core/prove/types';

export function testEndpoint(over: Partial<ProveEndpoint> = {}): ProveEndpoint {
  return {
    host: 'gpu-a',
    gpu: 'GPU0',
    gpuIndex: 0,
    gpuName: null,
    device: 'mlx5_0',
    port: 1,
    linkLayer: 'IB',
    lineRateGbps: 400,
    numaNode: 0,
    numaSource: 'nic',
    ...over,
  };
}
