// Host lists checked against the real tools, not against our own expectations: every list goes
// through ClusterShell (what `nodeset -e` / `nodeset -f` print) and, where pdsh reads it the same
// way, through `pdsh -R exec -w LIST echo %h` (fan-out 1 for short lists keeps pdsh's order).
import * as assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { HostListError, MAX_HOSTS, expandHostList, foldHostList, parseHostsFile } from '../../../src/core/parsers/hostlist';

const run = promisify(execFile);

/**
 * Lists both tools read alike; `pdsh: false` where pdsh reads them otherwise (drops `user@`, `x:` names an
 * rcmd module) or cannot show them (5000 runs; `pdsh -q` cuts its target line at 1 KiB).
 */
const LISTS: { list: string; pdsh?: false }[] = [
  { list: 'gpu[01-64]' },
  { list: 'node-[1-4,7]' },
  { list: 'x[5]' },
  { list: 'gpu[05]' },
  { list: 'r[1-2]n[1-2]' },
  { list: 'a[1-2]b[01-02]c' },
  { list: 'rack[1-3]-gpu[01-04]' },
  { list: 'gpu[08-12]' },
  { list: 'gpu[098-101]' },
  { list: 'gpu[98-101]' },
  { list: 'gpu[1,01,001]' },
  { list: 'gpu[0-10]' },
  { list: 'gpu[00-10]' },
  { list: 'b,a,c' },
  { list: 'gpu1 gpu2,gpu3' },
  { list: 'g[1-2],g[2-3]' },
  { list: 'a.b-c,a.b-d,a-b.c' },
  { list: 'n[1-3].cluster.local' },
  { list: 'gpu[1-3]x' },
  { list: 'gpu1[0-3]' },
  { list: 'gpu[1-3]0' },
  { list: '[1-3]' },
  { list: 'node[7,1-3,5]' },
  { list: 'gpu[1-3],node[1-2],gpu[2-4]' },
  { list: 'x:1,x:2', pdsh: false },
  { list: 'gdr@gpu[1-2],gpu3', pdsh: false },
  { list: 'gpu[1-2000]' },
  { list: 'c[1-2]r[1-3]n[01-08]' },
  { list: 'c[1-10]r[1-10]n[01-50]', pdsh: false },
  { list: 'gpu[9990-10010]' },
];

/** Widths that differ: ClusterShell 1.9 refuses them, pdsh pads to the lower bound, and so do we. */
const PDSH_ONLY = ['gpu[01-3]', 'gpu[1-010]', 'gpu[08-9]'];

/** Host sets to fold: quirks of nodeset -f, then seeded random subsets of 1-, 2- and 3-axis names. */
const FOLDS: string[][] = [
  ['gpu08', 'gpu99', 'gpu100'],
  ['gpu08', 'gpu10', 'gpu11', 'gpu99', 'gpu100'],
  ['rack1-gpu01', 'rack1-gpu02', 'rack2-gpu01', 'rack2-gpu02', 'rack2-gpu03'],
  ['r1n1', 'r1n2', 'r2n1'],
  ['gpu0', 'gpu00', 'gpu1', 'login', 'gpu9', 'gpu10'],
  ['n1a', 'n2a', 'n3b', 'a.b1', 'a-b1', 'a.b2'],
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map(randomHosts),
];

function randomHosts(seed: number): string[] {
  const rnd = mulberry32(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  const name = [
    () => `gpu${String(1 + pick(120)).padStart(3, '0')}`,
    () => `rack${1 + pick(4)}-gpu${String(1 + pick(16)).padStart(2, '0')}`,
    () => `c${1 + pick(3)}r${1 + pick(4)}n${1 + pick(8)}`,
    () => (rnd() < 0.5 ? `node${pick(25)}` : `node${String(pick(25)).padStart(2, '0')}`),
  ][seed % 4];
  return Array.from({ length: 10 + pick(60) }, name);
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * ClusterShell's own NodeSet, in one python3 process for every case (the `nodeset` command is a thin
 * layer over it: `-e` iterates NodeSet(list), `-f` prints str() of NodeSet.fromlist(lines)); one
 * process per case costs seconds on a busy two-core runner.
 */
const CLUSTERSHELL = `
import json, sys
from ClusterShell.NodeSet import NodeSet
def expand(words):
    try:
        return list(NodeSet.fromlist(words))
    except Exception as e:
        return {"error": str(e)}
req = json.load(sys.stdin)
json.dump({"expand": [expand(t) for t in req["expand"]], "fold": [str(NodeSet.fromlist(h)) for h in req["fold"]]}, sys.stdout)
`;

/** Lists go to ClusterShell as a shell would pass them to `nodeset -e`: one word per whitespace-separated part. */
interface ClusterShellAnswers {
  readonly expand: (string[] | { error: string })[];
  readonly fold: string[];
}

/** The Python that the `nodeset` command runs under (its `#!` line), which is where ClusterShell is installed. */
function nodesetPython(): string[] {
  const nodeset = execFileSync('sh', ['-c', 'command -v nodeset'], { encoding: 'utf8' }).trim();
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(fs.readFileSync(nodeset, 'utf8').split('\n')[0]);
  if (!shebang) throw new Error(`${nodeset} does not start with #!: cannot tell which Python holds ClusterShell`);
  return shebang[2] === undefined ? [shebang[1]] : [shebang[1], shebang[2]];
}

function clusterShell(expand: readonly (readonly string[])[], fold: readonly (readonly string[])[]): ClusterShellAnswers {
  const [python, ...pre] = nodesetPython();
  const out = execFileSync(python, [...pre, '-c', CLUSTERSHELL], {
    input: JSON.stringify({ expand, fold }),
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out) as ClusterShellAnswers;
}

/** pdsh's hosts in its order, repeats dropped (pdsh runs a repeated host again); fan-out 1 runs them one after another. */
async function pdshHosts(wArg: string, fanout = 1): Promise<string[]> {
  const { stdout } = await run('pdsh', ['-N', '-R', 'exec', '-f', String(fanout), '-w', wArg, 'echo', '%h'], { maxBuffer: 1 << 24 });
  return [...new Set(stdout.split('\n').filter((l) => l !== ''))];
}

/** pdsh's own reading of a list, without running anything: `pdsh -q` prints the targets as pdsh folds them. */
function pdshTargets(list: string): string {
  const out = execFileSync('pdsh', ['-q', '-w', list], { encoding: 'utf8' });
  const targets = out.slice(out.indexOf('-- Target nodes --') + '-- Target nodes --'.length).trim();
  if (targets.includes('[truncated]')) throw new Error(`pdsh -q cut the targets of ${list}: too long to compare this way`);
  return targets;
}

const sorted = (xs: readonly string[]) => [...xs].sort();
const short = (text: string) => (text.length > 36 ? `${text.slice(0, 36)}…` : text);
/**
 * pdsh -R exec costs a process per host, seconds on a busy runner: short lists run (in order), a
 * longer one is read by `pdsh -q` and its folded form expanded by ClusterShell, so neither side is ours.
 */
const PDSH_RUN_MAX = 16;

/** [list, column, reason pattern]: what we refuse and where; ClusterShell is asked too (see the test). */
const REFUSED: [string, number, RegExp][] = [
  ['gpu[1-3', 4, /unclosed bracket/],
  ['gpu[9-1]', 5, /reversed range 9-1/],
  ['a,,b', 3, /empty element/],
  ['a,', 2, /empty element/],
  [',a', 1, /empty element/],
  ['a, ,b', 4, /empty element/],
  ['gpu[]', 5, /empty range/],
  ['gpu[1,,2]', 7, /empty range/],
  ['gpu[1-]', 5, /bad range "1-"/],
  ['gpu[a-b]', 5, /bad range "a-b"/],
  ['gpu[1-2,x]', 9, /bad range "x"/],
  ['gpu1]', 5, /"\]" without "\["/],
  ['gpu[1-2][3-4]', 9, /two bracket groups/],
  ['gpu[1-[2]]', 7, /bracket inside brackets/],
  ['gpu[ 1-2]', 5, /whitespace inside brackets/],
  ['gpu[1-10/2]', 5, /bad range "1-10\/2"/],
  ['ok,gpu;rm -rf /', 7, /character ";" not allowed/],
  ['gpu$(id)', 4, /character "\$" not allowed/],
  ['-oProxyCommand=x', 1, /may not begin with "-"/],
  ['gdr@-x', 5, /may not begin with "-"/],
  ['a@b@c', 4, /more than one "@"/],
  ['@group', 1, /empty user or host/],
  ['a!b', 2, /character "!" not allowed/],
  [`gpu[1-${MAX_HOSTS + 1}]`, 5, /more than 10000 hosts/],
  ['x,c[1-200]n[1-100]', 3, /more than 10000 hosts/],
  ['g[1-6000],h[1-6000]', 11, /more than 10000 hosts/],
];

/** Refused by ClusterShell too: syntax both reject (the rest it takes as names, steps, operators or groups). */
const CLUSTERSHELL_REFUSES = new Set([
  'gpu[1-3',
  'gpu[9-1]',
  'a,,b',
  'a,',
  ',a',
  'a, ,b',
  'gpu[]',
  'gpu[1,,2]',
  'gpu[1-]',
  'gpu[a-b]',
  'gpu[1-2,x]',
  'gpu1]',
  'gpu[1-2][3-4]',
  'gpu[1-[2]]',
]);

describe('host lists (pdsh / ClusterShell syntax) against ClusterShell and pdsh', () => {
  let cs: ClusterShellAnswers;
  const pdsh = new Map<string, string[]>();
  const viaPdsh = LISTS.filter((l) => l.pdsh !== false).map((l) => l.list);
  const ranPdsh = (list: string) => expandHostList(list).length <= PDSH_RUN_MAX;
  const longLists = viaPdsh.filter((l) => !ranPdsh(l));

  before(async function () {
    this.timeout(120_000);
    for (const [bin, args] of [
      ['nodeset', ['--version']],
      ['pdsh', ['-V']],
    ] as const) {
      try {
        execFileSync(bin, args, { stdio: 'ignore' });
      } catch {
        throw new Error(
          `${bin} ${args.join(' ')} failed: the host-list tests compare with ClusterShell (clustershell) and pdsh; run test/lab/install.sh as root`,
        );
      }
    }
    const executed = [...viaPdsh.filter(ranPdsh), ...PDSH_ONLY];
    const answers = executed.map((list) => pdshHosts(list, PDSH_ONLY.includes(list) ? 32 : 1));
    cs = clusterShell(
      [...LISTS.map((l) => l.list.split(/\s+/)), ...REFUSED.map(([list]) => [list]), ...longLists.map((l) => [pdshTargets(l)])],
      [...LISTS.map((l) => expandHostList(l.list)), ...FOLDS],
    );
    for (const [i, list] of longLists.entries()) pdsh.set(list, cs.expand[LISTS.length + REFUSED.length + i] as string[]);
    for (const [i, hosts] of (await Promise.all(answers)).entries()) pdsh.set(executed[i], hosts);
  });

  for (const [i, { list }] of LISTS.entries()) {
    it(`expands and folds ${short(list)} as ClusterShell${viaPdsh.includes(list) ? ' and pdsh' : ''} do`, () => {
      const ours = expandHostList(list);
      assert.equal(new Set(ours).size, ours.length, 'no repeats');
      assert.deepEqual(sorted(ours), sorted(cs.expand[i] as string[]), 'same hosts as nodeset -e');
      if (viaPdsh.includes(list) && ranPdsh(list)) assert.deepEqual(ours, pdsh.get(list), 'same hosts in the same order as pdsh -w');
      if (viaPdsh.includes(list) && !ranPdsh(list)) assert.deepEqual(sorted(ours), sorted(pdsh.get(list) ?? []), 'same hosts as pdsh -q');
      const folded = foldHostList(ours);
      assert.equal(folded, cs.fold[i], 'same text as nodeset -f');
      assert.deepEqual(sorted(expandHostList(folded)), sorted(ours), 'fold round-trips');
    });
  }

  for (const list of PDSH_ONLY) {
    it(`pads ${list} to its lower bound like pdsh (the nodeset command refuses differing widths)`, () => {
      assert.deepEqual(sorted(expandHostList(list)), sorted(pdsh.get(list) ?? []));
      assert.throws(() => execFileSync('nodeset', ['-e', list], { stdio: 'pipe' }), /padding length mismatch/);
    });
  }

  for (const [i, hosts] of FOLDS.entries()) {
    it(`folds ${hosts.length} hosts like nodeset -f: ${short(hosts.slice(0, 3).join(','))}…`, () => {
      const folded = foldHostList(hosts);
      assert.equal(folded, cs.fold[LISTS.length + i]);
      assert.deepEqual(sorted(expandHostList(folded)), sorted([...new Set(hosts)]));
    });
  }

  it('reads a hosts file as pdsh -w ^file does: comments, blank lines, a list per line', async () => {
    const text = '# GPU nodes of rack 1\ngpu[01-04]\ngpu05,gpu06   # spares\n\n   login1\nr[1-2]n[1-2]\ngpu02\n';
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-hostsfile-'));
    try {
      fs.writeFileSync(path.join(dir, 'hosts'), text);
      assert.deepEqual(parseHostsFile(text), await pdshHosts(`^${path.join(dir, 'hosts')}`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [i, [list, column, reason]] of REFUSED.entries()) {
    it(`refuses ${short(list)} at column ${column}`, () => {
      const err = catchError(() => expandHostList(list));
      assert.ok(err instanceof HostListError, String(err));
      assert.equal(err.column, column, err.message);
      assert.match(err.reason, reason);
      assert.equal(err.text, list);
      assert.ok(err.message.includes(`column ${column}`) && err.message.includes(list), err.message);
      const theirs = cs.expand[LISTS.length + i];
      assert.equal(!Array.isArray(theirs), CLUSTERSHELL_REFUSES.has(list), `ClusterShell: ${JSON.stringify(theirs).slice(0, 200)}`);
    });
  }
});

describe('host lists: hosts files and folding refusals', () => {
  it('names the line of a hosts file, and the column in that line', () => {
    const err = catchError(() => parseHostsFile('# rack 1\ngpu[01-04]\n\nlogin1, gpu[9-1]\n'));
    assert.ok(err instanceof HostListError);
    assert.deepEqual([err.line, err.column, err.text], [4, 13, 'login1, gpu[9-1]']);
    assert.match(err.message, /^line 4, column 13: reversed range 9-1/);
  });

  it('refuses to fold what is not one host name', () => {
    for (const [host, column] of [
      ['gpu[1-2]', 4],
      ['a,b', 2],
      ['a b', 2],
      ['', 1],
    ] as const) {
      const err = catchError(() => foldHostList(['ok1', host]));
      assert.ok(err instanceof HostListError && err.column === column, `${host}: ${String(err)}`);
    }
  });

  it('gives nothing for a blank list and an empty hosts file', () => {
    assert.deepEqual(expandHostList('  \n'), []);
    assert.deepEqual(parseHostsFile('# nothing yet\n\n'), []);
    assert.equal(foldHostList([]), '');
  });
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return assert.fail('expected an error');
}
