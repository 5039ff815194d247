// Commands only where they work: package.json's when-clauses, evaluated against the context values the
// Hosts view gives its rows (hostContext.ts) and the keys the extension sets (contextKeyValues.ts).
import * as assert from 'node:assert/strict';
import { Commands, Views } from '../../../src/constants';
import { hostListKeys } from '../../../src/vscode/contextKeyValues';
import { DEMO_HOST, HostEntry, HostStatus, LOCAL_HOST } from '../../../src/vscode/hosts/hostModel';
import { hostContextValue, HostFacts, hostMenuWhen } from '../../../src/vscode/tree/hostContext';
import { englishManifest } from '../../support/manifest';
import { hostReport, labFile } from '../diagnosis/hostReport';
import { labSysfsText } from '../topology/pcie/labSysfs';
import { evaluateWhen, WhenContext } from '../../support/whenClause';

interface MenuItem {
  command: string;
  when?: string;
  group?: string;
}
const manifest = englishManifest();
const menus = manifest.contributes.menus as Record<string, MenuItem[]>;

const SSH: HostEntry = { id: 'ssh:gpu01', label: 'gpu01', kind: 'ssh', origin: 'ssh-config', destination: 'gpu01' };
const ADDED: HostEntry = { ...SSH, id: 'ssh:root@gpu02:2222', label: 'root@gpu02:2222', origin: 'added', destination: 'root@gpu02:2222' };
/** The menu items of a diagnosed, connected host that an unreachable one must not offer (no report, no session). */
const AFTER_DIAGNOSIS = [
  Commands.showTopology,
  Commands.copyReport,
  Commands.exportReport,
  Commands.openRawOutput,
  Commands.disconnect,
  Commands.removeHost,
];
const finishedAt = new Date(0);
const unreachable: HostStatus = { working: false, last: { kind: 'failed', step: 'tcp', message: 'gpu01: connection refused', finishedAt } };
/** A diagnosed outcome; `topo`: whether its report holds a readable topology. */
function diagnosed(topo: boolean): HostStatus {
  const facts = topo ? { topo: { commandId: 'topo', parsed: { ok: true, value: { gpus: [], nics: [], links: {} } } } } : {};
  const outcome = {
    kind: 'diagnosed',
    report: { commands: [], facts },
    diagnosis: { findings: [], pairs: [] },
    finishedAt,
  } as unknown as NonNullable<HostStatus['last']>;
  return { working: false, last: outcome, lastDiagnosed: outcome as HostStatus['lastDiagnosed'] };
}

/** The commands a host row shows: `inline` buttons, or its context menu. */
function rowCommands(facts: HostFacts, where: 'inline' | 'menu'): string[] {
  const context: WhenContext = { view: Views.hosts, viewItem: hostContextValue(facts) };
  return menus['view/item/context']
    .filter((m) => (where === 'inline') === (m.group ?? '').startsWith('inline'))
    .filter((m) => m.when === undefined || evaluateWhen(m.when, context))
    .map((m) => m.command);
}

/** Commands the palette lists given these keys (a command without a palette entry is always listed). */
function palette(keys: WhenContext): string[] {
  const hidden = menus.commandPalette.filter((m) => m.when !== undefined && !evaluateWhen(m.when, keys)).map((m) => m.command);
  return Object.values(Commands).filter((c) => !hidden.includes(c));
}

describe('package.json when-clauses: commands only where they work', () => {
  it('every when-clause of every menu parses', () => {
    for (const [menu, items] of Object.entries(menus)) {
      for (const m of items) if (m.when !== undefined) assert.doesNotThrow(() => evaluateWhen(m.when as string, {}), `${menu}: ${m.when}`);
    }
  });

  it('host menus say what hostMenuWhen says (one place writes the pattern)', () => {
    const whens = new Set(menus['view/item/context'].map((m) => m.when));
    for (const flag of [undefined, 'diagnosed', 'topology', 'connected', 'fixable', 'removable', 'demo', 'watched'] as const)
      assert.ok(whens.has(hostMenuWhen(Views.hosts, flag)), flag ?? 'any host');
    assert.ok(whens.has(hostMenuWhen(Views.hosts, 'watched', true)), 'not watched');
  });

  it('Watch on a host not watched, Stop Watching on a watched one', () => {
    const menu = (watch?: HostStatus['watch']) =>
      rowCommands({ host: SSH, status: { ...diagnosed(true), watch }, connected: false }, 'menu');
    assert.ok(menu().includes(Commands.watch) && !menu().includes(Commands.stopWatching));
    const watched = menu({ everyMinutes: 15 });
    assert.ok(watched.includes(Commands.stopWatching) && !watched.includes(Commands.watch));
  });

  it('the demo: no Disconnect; its simulated quick fixes, Reset Demo Host, and Remove closes it', () => {
    const facts = { host: DEMO_HOST, status: diagnosed(true), connected: false };
    const menu = rowCommands(facts, 'menu');
    assert.ok(!menu.includes(Commands.disconnect));
    for (const c of [Commands.applyQuickFix, Commands.resetDemoHost, Commands.removeHost, Commands.showTopology])
      assert.ok(menu.includes(c), c);
    assert.ok(!rowCommands({ host: ADDED, status: diagnosed(true), connected: true }, 'menu').includes(Commands.resetDemoHost));
  });

  it('an unreachable host: Diagnose inline, no Show Topology, no report', () => {
    const facts = { host: SSH, status: unreachable, connected: false };
    assert.deepEqual(rowCommands(facts, 'inline'), [Commands.diagnose]);
    const menu = rowCommands(facts, 'menu');
    for (const c of AFTER_DIAGNOSIS) assert.ok(!menu.includes(c), c);
    assert.ok(menu.includes(Commands.diagnose) && menu.includes(Commands.applyQuickFix));
  });

  it('a diagnosed, connected host added by hand: every host action', () => {
    const facts = { host: ADDED, status: diagnosed(true), connected: true };
    assert.deepEqual(rowCommands(facts, 'inline'), [Commands.diagnose, Commands.showTopology]);
    const menu = rowCommands(facts, 'menu');
    for (const c of [Commands.diagnose, Commands.applyQuickFix, ...AFTER_DIAGNOSIS]) assert.ok(menu.includes(c), c);
  });

  it('a diagnosis without a readable topology: a report, but no Show Topology', () => {
    const menu = rowCommands({ host: LOCAL_HOST, status: diagnosed(false), connected: false }, 'menu');
    assert.ok(menu.includes(Commands.copyReport));
    assert.ok(!menu.includes(Commands.showTopology));
  });

  it('nvidia-smi topo -m failed but the sysfs PCI tree was read: Show Topology (it draws the tree and derived distances)', async () => {
    const report = await hostReport({
      'pci-sysfs': labSysfsText('pxn-port-down'),
      'smi-q': labFile('healthy', 'out/nvidia-smi_-q.stdout'),
      topo: { stderr: 'nvidia-smi: topo not supported\n', rc: 3 },
    });
    const outcome = { kind: 'diagnosed', report, diagnosis: { findings: [], pairs: [] }, finishedAt } as unknown as NonNullable<
      HostStatus['last']
    >;
    const status: HostStatus = { working: false, last: outcome, lastDiagnosed: outcome as HostStatus['lastDiagnosed'] };
    assert.ok(rowCommands({ host: SSH, status, connected: true }, 'inline').includes(Commands.showTopology));
  });

  it('one meaning per name: Reload Host List is in the title bar only, never a host action', () => {
    const refresh = manifest.contributes.commands.find((c: { command: string }) => c.command === Commands.refresh);
    assert.equal(refresh.title, 'Reload Host List');
    assert.ok(menus['view/title'].some((m) => m.command === Commands.refresh));
    assert.ok(!menus['view/item/context'].some((m) => m.command === Commands.refresh));
  });

  it('the palette: host commands appear only once a host can take them', () => {
    const before = palette({});
    // Before the host list was read, Diagnose stays (it reads the list); nothing to report on, connect or fix.
    assert.ok(before.includes(Commands.diagnose));
    for (const c of [
      Commands.copyReport,
      Commands.showTopology,
      Commands.disconnect,
      Commands.applyQuickFix,
      Commands.removeHost,
      Commands.diagnoseFleet,
      Commands.fixLoadPeermem,
    ])
      assert.ok(!before.includes(c), c);
    const demoOnly = palette(hostListKeys([{ host: DEMO_HOST, status: diagnosed(true), connected: false }]));
    assert.ok(demoOnly.includes(Commands.showTopology) && demoOnly.includes(Commands.copyReport) && demoOnly.includes(Commands.removeHost));
    assert.ok(!demoOnly.includes(Commands.disconnect) && demoOnly.includes(Commands.applyQuickFix));
    assert.ok(!palette(hostListKeys([])).includes(Commands.diagnose));
    const connected = palette(hostListKeys([{ host: SSH, status: unreachable, connected: true }]));
    assert.ok(
      connected.includes(Commands.disconnect) && connected.includes(Commands.applyQuickFix) && !connected.includes(Commands.showTopology),
    );
    assert.ok(palette({ 'gdrDoctor.hasFleets': true }).includes(Commands.diagnoseFleet));
  });

  it('Analyze Topology in Editor: in the title bar of a topo file, in the context menu of one or of a selection', () => {
    const title = menus['editor/title'].filter((m) => m.command === Commands.analyzeTopologyInEditor);
    assert.equal(title.length, 1);
    assert.ok(evaluateWhen(title[0].when ?? '', { editorLangId: 'nvidia-topo' }));
    assert.ok(!evaluateWhen(title[0].when ?? '', { editorLangId: 'markdown' }));
    const context = menus['editor/context'].find((m) => m.command === Commands.analyzeTopologyInEditor);
    assert.ok(context && evaluateWhen(context.when ?? '', { editorLangId: 'log', editorHasSelection: true }));
    assert.ok(!evaluateWhen(context.when ?? '', { editorLangId: 'log', editorHasSelection: false }));
  });

  it('Prove GPUDirect RDMA only where it can run: an SSH host, never the demo (recordings) nor with no host', () => {
    assert.ok(!palette(hostListKeys([])).includes(Commands.prove), 'no host');
    assert.ok(!palette({}).includes(Commands.prove), 'the host list not read yet');
    assert.ok(
      !palette(hostListKeys([{ host: DEMO_HOST, status: diagnosed(true), connected: false }])).includes(Commands.prove),
      'the demo',
    );
    assert.ok(
      !palette(hostListKeys([{ host: LOCAL_HOST, status: diagnosed(true), connected: false }])).includes(Commands.prove),
      'this machine',
    );
    assert.ok(palette(hostListKeys([{ host: SSH, status: diagnosed(true), connected: false }])).includes(Commands.prove), 'an SSH host');
    assert.ok(!rowCommands({ host: DEMO_HOST, status: diagnosed(true), connected: false }, 'menu').includes(Commands.prove));
    assert.ok(rowCommands({ host: SSH, status: diagnosed(true), connected: false }, 'menu').includes(Commands.prove));
  });

  it('the editor commands only for an editor they can read: not with a Python file open', () => {
    const editorCommands = [Commands.analyzeNcclLog, Commands.compareNcclLog, Commands.analyzeTopologyInEditor];
    const python = palette({ editorIsOpen: true, editorLangId: 'python' });
    for (const c of editorCommands) assert.ok(!python.includes(c), c);
    const log = palette({ editorIsOpen: true, editorLangId: 'nccl-log' });
    assert.ok(
      log.includes(Commands.analyzeNcclLog) && log.includes(Commands.compareNcclLog) && !log.includes(Commands.analyzeTopologyInEditor),
    );
    // A plain .log or text file may hold a log the content detection has not claimed (or one too big for it).
    assert.ok(palette({ editorLangId: 'log' }).includes(Commands.analyzeNcclLog));
    const topo = palette({ editorIsOpen: true, editorLangId: 'nvidia-topo' });
    assert.ok(topo.includes(Commands.analyzeTopologyInEditor) && !topo.includes(Commands.analyzeNcclLog));
    // A selection anywhere may be a pasted matrix: Analyze Topology in Editor reads the selection.
    assert.ok(palette({ editorLangId: 'python', editorHasSelection: true }).includes(Commands.analyzeTopologyInEditor));
    assert.ok(!palette({}).includes(Commands.analyzeNcclLog), 'no editor');
  });
});
