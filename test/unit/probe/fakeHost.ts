// A fake GPU host for probe tests: a temp folder of stub commands, put first on PATH, that replay
// real outputs from test/fixtures/ and log when they start and end.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const FIXTURES = path.join(__dirname, '../../fixtures');

export function fixture(rel: string): string {
  return fs.readFileSync(path.join(FIXTURES, rel), 'utf8');
}

export interface FakeHost {
  readonly bin: string;
  readonly log: string;
  readonly env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** Stubs keyed by command name; each body is sh run with "$@" and $FIX = test/fixtures. */
export function makeFakeHost(stubs: Record<string, string>): FakeHost {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-probe-test-'));
  const bin = path.join(root, 'bin');
  const log = path.join(root, 'log');
  fs.mkdirSync(bin);
  fs.mkdirSync(log);
  for (const [name, body] of Object.entries(stubs)) {
    const file = path.join(bin, name);
    fs.writeFileSync(file, `#!/bin/sh\nFIX='${FIXTURES}'\ndate +%s%N >> "$GDR_TEST_LOG/${name}.start"\n${body}\n`);
    fs.chmodSync(file, 0o755);
  }
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, GDR_TEST_LOG: log };
  return { bin, log, env, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** Stubs for the external commands of PROBE_COMMANDS, replaying one 8× H100 node's real outputs. */
export const H100_STUBS: Record<string, string> = {
  'nvidia-smi': [
    'case "$1" in',
    '  topo) cat "$FIX/topo/h100-hgx-8gpu-nic-legend-spaces.txt" ;;',
    '  -q) cat "$FIX/smi-q/h100-80gb-hbm3-x8-driver565.txt" ;;',
    '  --query-gpu=*) cat "$FIX/gpus/geforce-rtx4070tisuper-x2-csv-header-crlf.txt" ;;',
    '  *) echo "unexpected nvidia-smi $*" >&2; exit 2 ;;',
    'esac',
  ].join('\n'),
  lscpu: 'cat "$FIX/lscpu/seed-xeon-gold-5318y-2socket-old-layout.txt"',
  numactl: 'cat "$FIX/numactl/seed-xeon-gold-5318y-2node.txt"',
  lsmod: 'cat "$FIX/lsmod/talos-connectx4-inbox-rdma-full-with-header.txt"',
  modinfo: [
    'case "$1" in',
    '  nvidia) cat "$FIX/modinfo/nvidia-550-open-ubuntu2204-signed.txt" ;;',
    '  nv_peer_mem) cat "$FIX/modinfo/nv-peer-mem-1.0-8-ubuntu1804-dkms.txt" ;;',
    '  *) echo "modinfo: ERROR: Module $1 not found." >&2; exit 1 ;;',
    'esac',
  ].join('\n'),
  ibv_devinfo: 'cat "$FIX/ibv/mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt"',
  ofed_info: 'cat "$FIX/ofed/mlnx-ofed-23.07-connectx5-daocloud.txt"',
  sudo: 'echo "sudo: a password is required" >&2; exit 1',
  id: 'echo 1000',
};

export function busyboxPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const file = path.join(dir, 'busybox');
    if (dir !== '' && fs.existsSync(file)) return file;
  }
  return undefined;
}
