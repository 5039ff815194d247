// `npm run bench:parsers`: is every parser linear on adversarial input? Each parser of
// src/core/parsers (and topo token detection) reads inputs built in bench/parserInputs.ts at two
// sizes, N and 4N, side by side with a linear baseline on the same text (split into lines, one pass
// over each). A linear parser keeps its ratio to the baseline from N to 4N; a quadratic one shows
// it growing about 4×. Exit status 1 only when a ratio grows more than 3× (see bench/README.md).
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { PARSER_CASES, ParserCase } from './parserInputs';
import { inRotation, summarize, Summary } from './stats';

const USAGE = 'usage: npm run bench:parsers [-- --rounds N (default 5)] [--only TEXT (cases whose name contains TEXT)]';
/** A ratio that grows more than this from N to 4N is a failure: linear stays near 1, quadratic is near 4. */
const GROWTH_LIMIT = 3;

interface Options {
  rounds: number;
  only: string;
}

function parseOptions(argv: readonly string[]): Options | null {
  const o: Options = { rounds: 5, only: '' };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--help' || flag === '-h') return null;
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === '--rounds' && Number.isInteger(Number(value)) && Number(value) >= 1) o.rounds = Number(value);
    else if (flag === '--only') o.only = value;
    else throw new Error(`bad option ${flag} ${value}\n${USAGE}`);
  }
  return o;
}

/** The baseline: what any line-reading parser must at least do — split the text into lines, and each line into its words. */
function baseline(text: string): number {
  let words = 0;
  for (const line of text.split('\n')) words += line.match(/\S+/g)?.length ?? 0;
  return words;
}

/** Wall-clock ms of one call (after a GC when the bench runs with --expose-gc). */
function timed(work: () => unknown): number {
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  work();
  return performance.now() - started;
}

interface SizeResult {
  readonly bytes: number;
  readonly outcome: string;
  readonly parser: Summary;
  readonly baseline: Summary;
  readonly ratio: number;
}

async function benchSize(c: ParserCase, bytes: number, rounds: number): Promise<SizeResult> {
  const text = c.build(bytes);
  const outcome = c.run(text); // also the warm-up
  baseline(text);
  const ms = { parser: [] as number[], baseline: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    await inRotation(round, [
      async () => void ms.parser.push(timed(() => c.run(text))),
      async () => void ms.baseline.push(timed(() => baseline(text))),
    ]);
  }
  const s = { parser: summarize(ms.parser), baseline: summarize(ms.baseline) };
  return { bytes: text.length, outcome, ...s, ratio: s.parser.median / Math.max(s.baseline.median, 0.001) };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`.padStart(9);
const msText = (v: number) => `${v.toFixed(2)} ms`.padStart(10);

function sizeLine(r: SizeResult): string {
  return (
    `    ${kib(r.bytes)}  parser median ${msText(r.parser.median)} (min ${msText(r.parser.min)})  ` +
    `baseline median ${msText(r.baseline.median)}  ratio ${r.ratio.toFixed(2).padStart(6)}   ${r.outcome}`
  );
}

/** Benches one case at N and 4N; true when its ratio grew within the limit. */
async function benchCase(c: ParserCase, rounds: number): Promise<boolean> {
  console.log(`\n  ${c.name}`);
  const small = await benchSize(c, c.bytes, rounds);
  console.log(sizeLine(small));
  const large = await benchSize(c, 4 * c.bytes, rounds);
  console.log(sizeLine(large));
  const growth = large.ratio / small.ratio;
  const ok = growth <= GROWTH_LIMIT;
  console.log(
    `    ${ok ? 'PASS' : 'FAIL'}  ratio grew ${growth.toFixed(2)}× for 4× the input (limit ${GROWTH_LIMIT}×; linear ≈ 1, quadratic ≈ 4)`,
  );
  return ok;
}

function loadLine(when: string): string {
  return `load average at ${when}: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  if (o === null) {
    console.log(USAGE);
    return;
  }
  const cpus = os.cpus();
  console.log(
    'gdr-doctor parsers bench: each parser against a linear baseline (split into lines, count the words of each) on the same text, at N and 4N',
  );
  console.log(
    `machine: ${cpus.length}× ${cpus[0]?.model ?? '?'}, Node ${process.version}, ` +
      `${o.rounds} rounds per size, GC before each sample: ${'gc' in globalThis ? 'yes' : 'no'}`,
  );
  console.log(loadLine('start'));
  const failed: string[] = [];
  for (const c of PARSER_CASES.filter((p) => p.name.includes(o.only))) if (!(await benchCase(c, o.rounds))) failed.push(c.name);
  console.log(`\n${loadLine('end')}`);
  console.log(
    failed.length === 0 ? 'every ratio stayed within the limit' : `FAILED (ratio grew more than ${GROWTH_LIMIT}×): ${failed.join('; ')}`,
  );
  if (failed.length > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
});
