// Prove with NCCL as a user runs it, in a real VS Code (code-server + chromium) with the packaged .vsix,
// against two lab hosts (each in its own namespace, as two machines) whose nccl-tests stand-in replays a
// real nccl-tests table and prints NCCL's lines for the host's own state (test/lab/fakenccltests.sh):
// two and four hosts selected, the context menu's "Prove with NCCL", progress, then the verdict in a
// notification and the proof in a document beside the editor; then two and four relayed nodes of a fleet
// reached through a login node running Slurm (srun there). Every rank started on every node and none left
// running (read from the hosts' call logs and process tables, not the UI). And an nccl-tests output pasted into
// an editor: the lens at its top, a cut row in Problems, Analyze nccl-tests Output's summary.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Lab, LabHost, startTestLab } from '../lab/lab';
import { readAuditLog } from '../support/labFix';
import { FIXTURES } from '../support/paths';
import { until } from '../support/until';
import { CACHE_DIR, RUN_DIR } from './environment';
import { hostsTree } from './treeRows';
import { Workbench, closeAfterSuite } from './workbench';
import { joinedRegExp } from '../support/joinedRegExp';

const RECORDS_PATH = path.join(CACHE_DIR, 'lab-prove-nccl.records.json');
const NETWORK = { bridge: 'gdrbr20', subnet: 20 };

const NODES = ['ncx-a', 'ncx-b', 'ncx-c', 'ncx-d'];
const LOGIN = 'ncx-login';
const FLEET = 'ncx-slurm';
const AUDIT_LOG = '/tmp/gdr-doctor-e2e-prove-nccl.audit.log';

const leftovers = (h: LabHost) => h.processes().filter((p) => /all_reduce_perf|fakenccltests|orted|srun/.test(p.args));
const rankCalls = (h: LabHost) => h.calls().filter((c) => c.cmd === 'all_reduce_perf').length;

describe('Prove with NCCL in a real VS Code (code-server + chromium + SSH lab)', function () {
  this.timeout(240_000);
  const workbench = new Workbench();
  let lab: Lab | undefined;
  const { sidebar, row, contextMenu, setExpanded, inline } = hostsTree(workbench);
  const toast = (text: string | RegExp) =>
    workbench.tab.locator('.notifications-toasts .notification-list-item', { hasText: text }).first();

  before(async function () {
    this.timeout(300_000);
    lab = await startTestLab({
      hosts: [
        { name: LOGIN, profile: 'no-gpu', netns: true, login: true },
        // login: true gives each node the cluster key and known_hosts: the nodes' own SSH trust, which mpirun uses.
        ...NODES.map((name) => ({ name, profile: 'hgx-ndr', netns: true, login: true })),
      ],
      recordsPath: RECORDS_PATH,
      network: NETWORK,
      slurm: { controller: LOGIN, nodes: NODES },
      readyTimeoutMs: 90_000,
    });
    // code-server passes its environment to the extension host: the audit log lands in /tmp.
    fs.rmSync(AUDIT_LOG, { force: true });
    process.env.GDR_DOCTOR_AUDIT_LOG = AUDIT_LOG;
    await workbench.start();
    const workspace = path.join(RUN_DIR, 'workspace');
    fs.copyFileSync(path.join(FIXTURES, 'nccl-tests/nccl-tests-309-h100-ndr-4nodes.txt'), path.join(workspace, 'allreduce-4nodes.txt'));
    fs.copyFileSync(path.join(FIXTURES, 'nccl-tests/nccl-tests-249-markdown-no-hash-cut.txt'), path.join(workspace, 'pasted-cut.txt'));
    await workbench.activityBarItem('GPUDirect RDMA').click();
    workbench.updateSettings(
      {
        'gdrDoctor.sshConfigFile': lab.sshConfigPath,
        'gdrDoctor.connectTimeoutSeconds': 8,
        'gdrDoctor.fleets': [{ name: FLEET, hosts: NODES.join(','), via: LOGIN, with: 'slurm' }],
      },
      'machine',
    );
    await row('ncx-a').waitFor();
  });

  closeAfterSuite(
    workbench,
    'prove-nccl-',
    () => delete process.env.GDR_DOCTOR_AUDIT_LOG,
    () => lab?.stop(),
  );

  it('runs nccl-tests on two selected hosts: the verdict against 8 × 400 Gb/s, GDR on 16 of 16 GPUs, the proof beside the editor', async function () {
    const [a, b] = [lab!.host('ncx-a'), lab!.host('ncx-b')];
    await row('ncx-a').click();
    await row('ncx-b').click({ modifiers: ['Control'] });
    await contextMenu('ncx-b', 'Prove with NCCL');
    await toast(/Proving with NCCL on ncx-a, ncx-b/).waitFor({ timeout: 30_000 });
    await workbench.screenshot('prove-nccl-01-progress');
    const verdict = joinedRegExp([
      /ncx-a, ncx-b: NCCL all_reduce reaches 366 GB\/s of 400 possible at 16 GiB \(91 %, ring; 8 × 400 Gb\/s per node\)/,
      /, GPUDirect RDMA on 16 of 16 GPUs, as predicted/,
    ]);
    await toast(verdict).waitFor({ timeout: 180_000 });
    const proof = workbench.tab.locator('.part.editor .tab', { hasText: 'NCCL proof ncx-a ncx-b' });
    await proof.waitFor();
    await workbench.tab.locator('.part.editor .view-lines', { hasText: 'NCCL all_reduce reaches 366 GB/s of 400 possible' }).waitFor();
    await workbench.screenshot('prove-nccl-02-verdict-and-proof');
    for (const h of [a, b]) assert.strictEqual(rankCalls(h), 8, h.name);
    assert.deepStrictEqual([...leftovers(a), ...leftovers(b)], [], 'nothing left running');
  });

  const closeEditors = () => workbench.runCommand('View: Close All Editor Groups');

  /** Proves with NCCL on what is selected now; waits for `verdict`; checks 8 more ranks ran on each of `nodes` and none is left. */
  async function proveSelected(on: ReturnType<typeof row>, nodes: string[], verdict: RegExp): Promise<void> {
    const before = nodes.map((n) => rankCalls(lab!.host(n)));
    await closeEditors(); // each proof opens beside the editor: the one this run opens is then the only one
    await contextMenu(on, 'Prove with NCCL');
    await toast(`Proving with NCCL on ${nodes.join(', ')}`).waitFor({ timeout: 30_000 });
    await toast(verdict).waitFor({ timeout: 240_000 });
    await workbench.tab.locator(`.part.editor .tab[data-resource-name="NCCL proof ${nodes.join(' ')}.txt"]`).waitFor();
    nodes.forEach((n, i) => assert.strictEqual(rankCalls(lab!.host(n)) - before[i], 8, n));
    const audited = readAuditLog(AUDIT_LOG) as { kind: string; nodes: string[]; status: string }[];
    assert.deepStrictEqual(
      audited.map((e) => [e.kind, e.nodes, e.status]).slice(-1),
      [['prove-nccl', nodes, 'measured']],
      'the audit log records the run',
    );
    for (const n of [...nodes, LOGIN]) await until(`nothing left on ${n}`, () => leftovers(lab!.host(n)).length === 0, 30_000);
  }

  /** Selects the four nodes' rows (`rowOf`) and proves on them: 32 ranks, GDR on 32 of 32 GPUs. */
  async function proveAllFour(rowOf: (name: string) => ReturnType<typeof row>): Promise<void> {
    await workbench.tab.mouse.move(0, 0);
    await rowOf(NODES[0]).click();
    for (const n of NODES.slice(1)) await rowOf(n).click({ modifiers: ['Control'] });
    const verdict =
      /ncx-a, ncx-b, ncx-c, ncx-d: NCCL all_reduce reaches \d+ GB\/s of 400 possible .*GPUDirect RDMA on 32 of 32 GPUs, as predicted/;
    await proveSelected(rowOf(NODES[3]), NODES, verdict);
  }

  it('runs on four selected hosts directly: mpirun on the first, 32 ranks, GDR on 32 of 32 GPUs', async function () {
    this.timeout(360_000);
    await proveAllFour(row);
    const launched = lab!
      .host(LOGIN)
      .calls()
      .filter((c) => /^(mpirun|srun|all_reduce_perf)$/.test(c.cmd));
    assert.deepStrictEqual(launched, [], 'the login node took no part');
    await workbench.screenshot('prove-nccl-02b-four-hosts');
  });

  it('runs on two, then four relayed nodes of a fleet through srun on its login node', async function () {
    this.timeout(600_000);
    await inline(row(FLEET), 'Diagnose Fleet');
    // The grouping once every node has ended: while it runs the description reads "diagnosing 0/4 hosts",
    // which an unanchored /4 hosts/ matched, so the groups were looked for before they existed.
    const summary = row(FLEET).locator('.label-description', { hasText: /^\d+ hosts? / });
    await summary.waitFor({ timeout: 240_000 });
    assert.match(await summary.innerText(), /^4 hosts \S+$/, 'four identical nodes make one group');
    await setExpanded(row(FLEET), true);
    // Every group expanded, whatever the grouping: the nodes are then rows of their own (level 3).
    const groups = sidebar().locator('.monaco-list-row[aria-level="2"]', {
      has: workbench.tab.locator('.label-name', { hasText: /^\d+ hosts? · / }),
    });
    for (let i = 0; i < (await groups.count()); i++) await setExpanded(groups.nth(i), true);
    const node = (name: string) =>
      sidebar().locator('.monaco-list-row[aria-level="3"]', {
        has: workbench.tab.locator('.label-name', { hasText: new RegExp(`^${name}$`) }),
      });
    const srunSteps = () =>
      fs
        .readFileSync(lab!.slurm!.ctldLogPath, 'utf8')
        .split('\n')
        .filter((l) => /JobId=\d+ NodeList=\S*ncx-/.test(l)).length;
    const stepsBefore = srunSteps();
    await node('ncx-a').click();
    await node('ncx-b').click({ modifiers: ['Control'] });
    await proveSelected(
      node('ncx-b'),
      ['ncx-a', 'ncx-b'],
      /ncx-a, ncx-b: NCCL all_reduce reaches 366 GB\/s of 400 possible .*GPUDirect RDMA on 16 of 16 GPUs, as predicted/,
    );
    await workbench.tab.locator('.part.editor .view-lines', { hasText: 'srun --nodelist=ncx-a,ncx-b --nodes=2' }).waitFor();
    assert.ok(srunSteps() > stepsBefore, 'slurmctld gave the job its nodes');
    await workbench.screenshot('prove-nccl-02c-two-nodes-slurm');
    await proveAllFour(node);
    await workbench.tab.locator('.part.editor .view-lines', { hasText: 'srun --nodelist=ncx-a,ncx-b,ncx-c,ncx-d --nodes=4' }).waitFor();
    await workbench.screenshot('prove-nccl-02d-four-nodes-slurm');
    await setExpanded(row(FLEET), false);
  });

  it('reads an nccl-tests output in the editor: the lens says what ran and its busbw; Analyze gives the summary', async function () {
    await closeEditors();
    await workbench.openFile('allreduce-4nodes.txt');
    const lens = workbench.tab.locator('.part.editor .codelens-decoration', { hasText: 'busbw 365.84 GB/s at 16 GiB' });
    await lens.waitFor({ timeout: 30_000 });
    assert.match(await lens.innerText(), /all_reduce_perf \(NCCL 2\.26\.2\): 32 ranks listed on 4 nodes/);
    await workbench.screenshot('prove-nccl-03-lens');
    await workbench.runCommand('GPUDirect RDMA: Analyze nccl-tests Output');
    await workbench.tab.locator('.part.editor .tab', { hasText: 'allreduce-4nodes.txt (nccl-tests summary)' }).waitFor();
    await workbench.tab.locator('.part.editor .view-lines', { hasText: 'largest size 16 GiB: busbw 365.84 GB/s' }).waitFor();
  });

  it('marks a pasted output whose last row was cut in Problems, on that row', async function () {
    await workbench.openFile('pasted-cut.txt');
    await workbench.runCommand('Problems: Focus on Problems View');
    const problem = workbench.tab
      .locator('.markers-panel .monaco-list-row', { hasText: 'nccl-tests row cut off: it ends after 4 of 13 columns' })
      .first();
    await problem.waitFor({ timeout: 30_000 });
    assert.match(await problem.innerText(), /\[Ln 16, Col 1\]/);
    await workbench.screenshot('prove-nccl-04-cut-row');
  });
});
