// The nccl-tests stand-in of a profile (fakenccltests.sh): which NCCL bus id and NIC each GPU has (as
// NCCL names them in its log), which recorded table a run prints when GPUDirect RDMA works and when it
// does not, and whether the "build" writes -J JSON. Written as flat files for the shell side, and the
// three binaries as fakes; checked here so a broken profile fails before any host starts.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface NcclTestsSpec {
  /** By GPU index: its PCI address (`0000:19:00.0`), the RDMA device NCCL gives it (`mlx5_0`), its name as nvidia-smi prints it. */
  gpus: [string, string, string][];
  /** Recording sets under `nccl-tests/` (`<set>.txt`, optional `<set>.json`): what a run prints, with and without GDR. */
  tables: { gdr: string; 'no-gdr': string };
  /** The stand-in's usage names -J (`output_file`), as nccl-tests 2.17+ does: the check's grep finds it. */
  json?: boolean;
}

export const NCCL_TESTS_BINARIES = ['all_reduce_perf', 'all_gather_perf', 'sendrecv_perf'];

export function writeNcclTestsStandIn(profileDir: string, prof: string, bin: string, hostDir: string, spec: NcclTestsSpec): void {
  for (const [bus, nic, name] of spec.gpus)
    if (!/^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/.test(bus) || !/^[A-Za-z0-9_]+$/.test(nic) || !/^[A-Za-z0-9 -]+$/.test(name ?? ''))
      throw new Error(
        `${profileDir}: ncclTests.gpus: expected [bus address, RDMA device, GPU name], got ${JSON.stringify([bus, nic, name])}`,
      );
  for (const set of Object.values(spec.tables))
    if (!fs.existsSync(path.join(prof, 'nccl-tests', `${set}.txt`)))
      throw new Error(`${profileDir}: ncclTests: no recording nccl-tests/${set}.txt`);
  fs.mkdirSync(path.join(prof, 'nccl'), { recursive: true });
  fs.writeFileSync(path.join(prof, 'nccl', 'gpus.tsv'), spec.gpus.map(([bus, nic, name], i) => `${i}\t${bus}\t${nic}\t${name}\n`).join(''));
  fs.writeFileSync(
    path.join(prof, 'nccl', 'tables.tsv'),
    Object.entries(spec.tables)
      .map(([k, v]) => `${k}\t${v}\n`)
      .join(''),
  );
  const usage = spec.json ? '# stand-in for nccl-tests; its usage names [-J,--output_file <file>] as nccl-tests 2.17+ does\n' : '';
  for (const cmd of NCCL_TESTS_BINARIES) {
    fs.writeFileSync(path.join(bin, cmd), `#!/bin/sh\n${usage}exec /bin/bash '${hostDir}/fakecmd.sh' '${hostDir}' '${cmd}' "$@"\n`);
    fs.chmodSync(path.join(bin, cmd), 0o755);
  }
}
