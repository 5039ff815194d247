// One lab-like fleet for the grouping and report tests, every host probed from real saved outputs:
// gpu[01-05] healthy (DGX-A100 preset), gpu06 the same but a proprietary 510 driver (healthy, other
// info findings), gpu[07-09] without nvidia_peermem, gpu10 the seed box (3 NICs: a far NIC and a
// topology unlike the rest), gpu11/gpu13 refusing the login, gpu12 refusing the connection.
import { withFleetFindings } from '../../../src/core/fleet/topologyDiff';
import { FleetHostResult } from '../../../src/core/fleet/types';
import { unameFromModinfo } from '../diagnosis/constructedInputs';
import { HEALTHY, NO_PEERMEM } from '../diagnosis/hosts';
import { fixture } from '../diagnosis/hostReport';
import { probed, probedAs, unreachable } from './fleetHosts';

const PROPRIETARY_510 = 'modinfo/nvidia-510-proprietary-ubuntu2204-a6000.txt';

export async function labFleet(): Promise<FleetHostResult[]> {
  return withFleetFindings([
    ...(await probedAs(['gpu01', 'gpu02', 'gpu03', 'gpu04', 'gpu05'], HEALTHY)),
    await probed('gpu06', { ...HEALTHY, 'modinfo-nvidia': fixture(PROPRIETARY_510), uname: unameFromModinfo(PROPRIETARY_510) }),
    ...(await probedAs(['gpu07', 'gpu08', 'gpu09'], NO_PEERMEM)),
    await probed('gpu10', {
      ...HEALTHY,
      topo: fixture('topo/seed-xeon-gold-5318y-8gpu-3nic.txt'),
      numactl: fixture('numactl/seed-xeon-gold-5318y-2node.txt'),
    }),
    unreachable('gpu11', { level: 'client-authentication', message: 'All configured authentication methods failed' }),
    unreachable('gpu12', { code: 'ECONNREFUSED' }),
    unreachable('gpu13', { level: 'client-authentication', message: 'All configured authentication methods failed' }),
  ]);
}
