// Diagnosed hosts for the proof tests: the lab's "healthy" profile recordings (real fixture copies:
// test/lab/profiles/README.md), read through the offline runner with perftest's check, whose lines
// are the check's own format around a real `ib_write_bw --help | grep cuda` output.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { diagnose } from '../../../src/core/diagnosis';
import type { DiagnosedHost } from '../../../src/core/prove';
import { PROOF_PROBE_COMMANDS } from '../../../src/core/prove/probe';
import { offlineRunner } from '../../../src/core/transport/saved';
import { runProbe } from '../../../src/core/probe/runProbe';
import { fixture, labFile } from '../diagnosis/hostReport';

const CUDA_HELP = fixture('perftest/help-grep-cuda-mlnx-ofed-5.5-cuda-11.6.txt');

/** The check's output: where each tool is, then the CUDA lines of --help. */
export function perftestCheck(tools: { ibWriteBw?: string | null; numactl?: string | null } = {}, help = CUDA_HELP): string {
  const at = (v: string | null | undefined, d: string) => (v === undefined ? d : (v ?? '-'));
  const ib = at(tools.ibWriteBw, '/usr/bin/ib_write_bw');
  return `which ib_write_bw ${ib}\nwhich numactl ${at(tools.numactl, '/usr/bin/numactl')}\nwhich timeout /usr/bin/timeout\n${ib === '-' ? '' : help}`;
}

/** The healthy lab host (8 GPUs, mlx5_0 InfiniBand 200 Gb/s, mlx5_1/2 RoCE 100 Gb/s) with `changes` over its files. */
export async function healthyHost(name = 'gpu-a', changes: Record<string, string> = {}): Promise<DiagnosedHost> {
  const files: Record<string, string> = {
    topo: labFile('healthy', 'out/nvidia-smi_topo_-m.stdout'),
    numactl: labFile('healthy', 'out/numactl_-H.stdout'),
    lscpu: labFile('healthy', 'out/lscpu.stdout'),
    'smi-q': labFile('healthy', 'out/nvidia-smi_-q.stdout'),
    ibv: labFile('healthy', 'out/ibv%5Fdevinfo_-v.stdout'),
    ofed: labFile('healthy', 'out/ofed%5Finfo_-s.stdout'),
    'modinfo-nvidia': labFile('healthy', 'modinfo/nvidia.txt'),
    'nvidia-version': labFile('healthy', 'files/proc/driver/nvidia/version'),
    perftest: perftestCheck(),
    ...changes,
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-prove-'));
  try {
    for (const [id, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${id}.txt`), text);
    const report = await runProbe(offlineRunner(dir), { host: name, commands: PROOF_PROBE_COMMANDS });
    return { host: name, report, diagnosis: diagnose(report) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A real perftest output replayed for the GPU at `busId`: the listing line of the device it picked
 * (`CUDA device 0: PCIe address is D5:00`) shows that GPU's bus and device number, as perftest prints it
 * when given --use_cuda_bus_id=<that address> (src/cuda_memory.c init_gpu). Nothing else changes.
 */
export function pickedAs(output: string, busId: string | null | undefined): string {
  const picked = /^Picking device No\. (\d+)$/m.exec(output);
  if (!picked || !busId) return output;
  return output.replace(
    new RegExp(`^CUDA device ${picked[1]}: PCIe address is [0-9A-F]{2}:[0-9A-F]{2}$`, 'm'),
    `CUDA device ${picked[1]}: PCIe address is ${busId.slice(5, 10).toUpperCase()}`,
  );
}
