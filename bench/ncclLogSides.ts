// The sides the nccl-log bench times, each a process of its own over the same file:
//   gdr-doctor  `node dist/cli.js nccl-log FILE --json`, its own peak RSS read by fleetRss.mjs
//   grep        `grep -c GDRDMA FILE`: the lines a user would grep for, counted
//   wc          `wc -l FILE`: reading the file and finding its line ends, nothing else
//   readline    Node reading the file line by line and counting GDRDMA lines: the floor of any
//               line reader in Node, for reading only
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist/cli.js');
const RSS_HOOK = path.join(__dirname, 'fleetRss.mjs');

export interface Run {
  readonly ms: number;
  readonly stdout: string;
  /** Peak resident set size of the process, KiB (gdr-doctor only). */
  readonly rssKiB: number | null;
}

function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Run {
  const t0 = performance.now();
  const r = spawnSync(command, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout, rssKiB: null };
}

export function gdrDoctor(file: string): Run {
  const rssFile = path.join(os.tmpdir(), `gdr-doctor-nccl-log-bench-${process.pid}.rss`);
  const run = timed(process.execPath, ['--import', RSS_HOOK, CLI, 'nccl-log', file, '--json'], {
    ...process.env,
    GDR_BENCH_RSS_FILE: rssFile,
  });
  const rssKiB = Number(fs.readFileSync(rssFile, 'utf8').trim());
  fs.rmSync(rssFile, { force: true });
  return { ...run, rssKiB };
}

export function grepCount(file: string): Run {
  return timed('grep', ['-c', 'GDRDMA', file]);
}

export function wcLines(file: string): Run {
  return timed('wc', ['-l', file]);
}

const READLINE = `
const rl = require('node:readline').createInterface({ input: require('node:fs').createReadStream(process.argv[1], { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
let n = 0; rl.on('line', (l) => { if (l.includes('GDRDMA')) n++; }); rl.on('close', () => console.log(n));`;

export function nodeReadline(file: string): Run {
  return timed(process.execPath, ['-e', READLINE, file]);
}

export function cliBuilt(): boolean {
  return fs.existsSync(CLI);
}
