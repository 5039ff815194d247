// The diagnosis of saved outputs under an NCCL release and environment, as `diagnose --nccl … --nccl-env …`.
import { Diagnosis, GpuNicPair, diagnose, readNcclAssumptions } from '../../../../src/core/diagnosis';
import { hostReport } from '../../diagnosis/hostReport';

export async function diagnoseWith(files: Parameters<typeof hostReport>[0], version?: string, env: string[] = []): Promise<Diagnosis> {
  const nccl = readNcclAssumptions(version, env);
  if (typeof nccl === 'string') throw new Error(nccl);
  return diagnose(await hostReport(files), nccl);
}

export function pairOf(d: Diagnosis, gpu: string): GpuNicPair {
  const p = d.pairs.find((x) => x.gpu === gpu);
  if (!p) throw new Error(`no pair for ${gpu}`);
  return p;
}
