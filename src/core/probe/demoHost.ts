// `--demo`: a built-in host replayed from recorded outputs, no network.
//
// The demo host is ASSEMBLED FROM REAL OUTPUTS OF SEVERAL MACHINES (the project's test fixtures;
// sources in test/fixtures/SOURCES.md), chosen to be one coherent class: an 8× A100-SXM DGX-A100-like
// node on 2× AMD EPYC with NPS4 (8 NUMA nodes, 256 CPUs), Mellanox InfiniBand, MLNX_OFED, Ubuntu 22.04,
// nvidia_peermem loaded. The topo, numactl and lscpu CPU lists agree (GPU0's affinity 48-63,176-191 is
// NUMA node 3 in both). Known seams: ibv_devinfo shows 2 ConnectX-6 HCAs where topo lists 10 NICs;
// lsmod is a `grep`-filtered copy; modinfo nvidia is an open 550 driver while topo came from 525; no
// smi-q/gpus/nvidia-version output of this class was available, so those are "not collected".
//
// Layout: `demoRunner(dir)` reads `dir/<fixture path>` for each entry of DEMO_FILES, i.e. the same
// relative paths as under test/fixtures/ (`topo/dgx-a100-epyc-nic-legend.txt`, …). Package those
// files under one folder keeping their paths, or pass test/fixtures itself.
import { promises as fs } from 'fs';
import * as path from 'path';
import { ProbeCommandId } from './commands';
import { encodeDone, encodeHeader, encodeSection } from './frames';
import { ProbeRunner } from './runProbe';

export const DEMO_HOST_NAME = 'demo-dgx-a100 (replayed)';

/** Command id → fixture path relative to the demo folder. Commands not listed were "not collected". */
export const DEMO_FILES: Readonly<Partial<Record<ProbeCommandId, string>>> = {
  topo: 'topo/dgx-a100-epyc-nic-legend.txt',
  numactl: 'numactl/amd-epyc-2socket-nps4-8node-mi210.txt',
  lscpu: 'lscpu/amd-epyc-9534-2socket-nps4-h100nvl-new-layout.txt',
  ibv: 'ibv/mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt',
  lsmod: 'lsmod/gpu-operator-ib-grep-nvidia-peermem.txt',
  'modinfo-nvidia': 'modinfo/nvidia-550-open-ubuntu2204-signed.txt',
  ofed: 'ofed/mlnx-ofed-23.07-connectx5-daocloud.txt',
  'os-release': 'os-release/ubuntu-22.04.5.txt',
};

export function demoRunner(dir: string): ProbeRunner {
  return async (_script, request) => {
    const files = DEMO_FILES as Readonly<Record<string, string | undefined>>;
    const parts = [encodeHeader(request.boundary, { clock: 'none', timeout: 'no', source: 'demo' })];
    for (const spec of request.commands) {
      const file = files[spec.id];
      if (file === undefined) continue;
      const stdout = await fs.readFile(path.join(dir, file));
      parts.push(encodeSection(request.boundary, { id: spec.id, exitCode: 0, durationMs: 0, limitS: spec.timeoutS, stdout, stderr: Buffer.alloc(0) }));
    }
    parts.push(encodeDone(request.boundary));
    return { stdout: Buffer.concat(parts), stderr: Buffer.alloc(0), exitCode: 0, connectionLost: false, timedOut: false };
  };
}
