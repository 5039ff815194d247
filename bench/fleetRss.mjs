// Preloaded into the gdr-doctor CLI by the fleet and nccl-log benches (`node --import <this file> dist/cli.js …`):
// as the process exits, writes its own peak resident set size (getrusage ru_maxrss, KiB on Linux) to
// the file named in GDR_BENCH_RSS_FILE. Read inside the process itself, so the number is the CLI's
// own peak, not a sample that could miss it; child processes (ssh -G) are not counted.
import { writeFileSync } from 'node:fs';

const file = process.env.GDR_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, `${process.resourceUsage().maxRSS}\n`));
