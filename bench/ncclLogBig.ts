// Builds the big NCCL log the nccl-log bench reads: a 1,024-rank job (128 hosts × 8 GPUs) made by
// repeating REAL lines — the two pages of host tpgds-aihub0008's NCCL 2.27.5 log in
// test/fixtures/nccl-log (init: NIC list, DMA-BUF, Init START; channel setup: GDRDMA and P2P/IPC
// connections) — with the host name, pids and ranks rewritten per host, so every host and rank is
// distinct. One pass over the 128 hosts is one communicator's setup; passes repeat (a job that
// creates communicator after communicator, as training frameworks do) until the file has the size
// asked for. The fixtures' first and last lines, which the index cut mid-line, are left out.
import * as fs from 'node:fs';
import * as path from 'node:path';

const FIXTURES = path.resolve(__dirname, '../test/fixtures/nccl-log');
const SOURCES = ['roce-8gpu-nccl2.27.5-aws-ofi-plugin-fallback-init-cut.txt', 'roce-8gpu-nccl2.27.5-gdrdma-p2p-ipc-channel-setup-cut.txt'];
export const HOSTS = 128;
export const GPUS_PER_HOST = 8;
const RANKS = HOSTS * GPUS_PER_HOST;
/** The source host's ranks are 8–15 of 16: rank r of it becomes rank r - 8 + 8h of host h. */
const SOURCE_FIRST_RANK = 8;

/** The complete lines of the source pages (no cut first or last line). */
function sourceLines(): string[] {
  return SOURCES.flatMap((name) => {
    const lines = fs.readFileSync(path.join(FIXTURES, name), 'utf8').split('\n');
    return lines.slice(1, -1);
  });
}

/** One host's copy of the lines: its own name, pids and ranks (peers on the neighbouring hosts). */
function hostLines(lines: readonly string[], h: number): string {
  const host = `gpu-node${String(h).padStart(3, '0')}`;
  const rank = (r: string) => String((Number(r) - SOURCE_FIRST_RANK + h * GPUS_PER_HOST + RANKS) % RANKS);
  return lines
    .map((line) =>
      line
        .replace(/^tpgds-aihub0008:(\d+):(\d+)/, (_, pid: string, tid: string) => `${host}:${Number(pid) + h}:${Number(tid) + h}`)
        .replace(
          /(\d+)\[(\d+)\] -> (\d+)\[(\d+)\]/,
          (_, a: string, da: string, b: string, db: string) => `${rank(a)}[${da}] -> ${rank(b)}[${db}]`,
        )
        .replace(/ rank (\d+) nranks 16 /, (_, r: string) => ` rank ${rank(r)} nranks ${RANKS} `),
    )
    .join('\n');
}

export interface BigLog {
  readonly file: string;
  readonly bytes: number;
  readonly passes: number;
  /** Lines with "GDRDMA" in them, as `grep -c GDRDMA` counts them (all are connection lines here). */
  readonly gdrdmaLines: number;
}

/** Writes `file` with at least `mb` MiB of log; reuses one already there of the same size. */
export function buildBigLog(file: string, mb: number): BigLog {
  const lines = sourceLines();
  const pass = Array.from({ length: HOSTS }, (_, h) => hostLines(lines, h)).join('\n') + '\n';
  const passBytes = Buffer.byteLength(pass);
  const passes = Math.max(1, Math.ceil((mb * 1024 * 1024) / passBytes));
  const gdrdmaPerPass = pass.split('\n').filter((l) => l.includes('GDRDMA')).length;
  const bytes = passes * passBytes;
  if (!fs.existsSync(file) || fs.statSync(file).size !== bytes) {
    const fd = fs.openSync(file, 'w');
    try {
      for (let i = 0; i < passes; i++) fs.writeSync(fd, pass);
    } finally {
      fs.closeSync(fd);
    }
  }
  return { file, bytes, passes, gdrdmaLines: passes * gdrdmaPerPass };
}
