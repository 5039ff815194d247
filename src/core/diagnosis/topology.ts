// `topo.nic-far`: GPUs whose nearest RDMA NIC is beyond NCCL's default GPUDirect RDMA distance.
import { ProbeReport } from '../probe/runProbe';
import { quote, startsWithWord } from './evidence';
import { Finding, SOURCES } from './finding';
import { GpuNicPair } from './pairs';

export function nicFarFindings(report: ProbeReport, pairs: readonly GpuNicPair[]): Finding[] {
  const far = pairs.filter((p) => p.nics.length > 0 && (p.ncclPath === 'PHB' || p.ncclPath === 'SYS'));
  if (far.length === 0) return [];
  const line = (p: GpuNicPair) => `${p.gpu} → ${p.nics.map((n) => n.device ?? n.nic).join(', ')} (${p.link})`;
  const anySys = far.some((p) => p.ncclPath === 'SYS');
  const anyPhb = far.some((p) => p.ncclPath === 'PHB');
  return [{
    id: 'topo.nic-far',
    severity: 'warning',
    title: `${far.map((p) => p.gpu).join(', ')}: nearest RDMA NIC is ${[...new Set(far.map((p) => p.link))].join('/')}; NCCL will not use GPUDirect RDMA for ${far.length === 1 ? 'it' : 'them'}`,
    detail:
      `NCCL uses GPUDirect RDMA only when the GPU→NIC path is PIX or PXB (NCCL_NET_GDR_LEVEL default PXB); PHB and NODE count as PHB, ` +
      `SYS/SOC as SYS. Nearest NICs: ${far.map(line).join('; ')}. These GPUs stage network traffic through host memory. ` +
      (anyPhb ? 'NCCL_NET_GDR_LEVEL=PHB would enable it over the PHB/NODE paths, through the CPU\'s root complex (measure it). ' : '') +
      (anySys ? 'NCCL_NET_GDR_LEVEL=SYS would force it across the CPU sockets, usually slower than staging; better put a NIC on those GPUs\' PCIe switch or socket, or rely on PXN through an NVLink peer. ' : '') +
      'See `pairs` for the per-GPU verdicts.',
    evidence: far.flatMap((p) => quote(report, 'topo', startsWithWord(p.gpu))).slice(0, 8),
    fixes: [],
    source: `${SOURCES.ncclGdr}; ${SOURCES.ncclEnv}`,
  }];
}
