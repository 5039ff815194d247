// Every command, view and setting id in one place. package.json's `contributes` must match
// these (unit tests check it), so renaming one is a single edit plus the manifest.

export const EXTENSION_ID = 'gdr-doctor.gdr-doctor';

export const ViewContainers = {
  main: 'gdrDoctor',
} as const;

export const Views = {
  hosts: 'gdrDoctor.hosts',
} as const;

/** Palette category of every command. */
export const COMMAND_CATEGORY = 'GPUDirect RDMA';

export const Commands = {
  addHost: 'gdrDoctor.addHost',
  openDemoHost: 'gdrDoctor.openDemoHost',
  resetDemoHost: 'gdrDoctor.resetDemoHost',
  diagnoseThisMachine: 'gdrDoctor.diagnoseThisMachine',
  diagnose: 'gdrDoctor.diagnose',
  refresh: 'gdrDoctor.refresh',
  copyReport: 'gdrDoctor.copyReport',
  exportReport: 'gdrDoctor.exportReport',
  openRawOutput: 'gdrDoctor.openRawOutput',
  disconnect: 'gdrDoctor.disconnect',
  removeHost: 'gdrDoctor.removeHost',
  showLog: 'gdrDoctor.showLog',
  gettingStarted: 'gdrDoctor.gettingStarted',
  showTopology: 'gdrDoctor.showTopology',
  analyzeTopologyInEditor: 'gdrDoctor.analyzeTopologyInEditor',
  applyQuickFix: 'gdrDoctor.applyQuickFix',
  fixLoadPeermem: 'gdrDoctor.fixLoadPeermem',
  fixPersistPeermem: 'gdrDoctor.fixPersistPeermem',
  fixDisableAcs: 'gdrDoctor.fixDisableAcs',
  fixPersistAcs: 'gdrDoctor.fixPersistAcs',
  addFleet: 'gdrDoctor.addFleet',
  removeFleet: 'gdrDoctor.removeFleet',
  diagnoseFleet: 'gdrDoctor.diagnoseFleet',
  analyzeNcclLog: 'gdrDoctor.analyzeNcclLog',
  compareNcclLog: 'gdrDoctor.compareNcclLog',
  prove: 'gdrDoctor.prove',
  watch: 'gdrDoctor.watch',
  stopWatching: 'gdrDoctor.stopWatching',
  proveNccl: 'gdrDoctor.proveNccl',
  analyzeNcclTests: 'gdrDoctor.analyzeNcclTests',
  forgetSudoPasswords: 'gdrDoctor.forgetSudoPasswords',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];

export const Settings = {
  section: 'gdrDoctor',
  /** Relative keys under `section`. */
  sshConfigFile: 'sshConfigFile',
  hosts: 'hosts',
  strictHostKeyChecking: 'strictHostKeyChecking',
  connectTimeoutSeconds: 'connectTimeoutSeconds',
  probeTimeoutSeconds: 'probeTimeoutSeconds',
  maxConcurrentHosts: 'maxConcurrentHosts',
  fleets: 'fleets',
  ncclVersion: 'ncclVersion',
  ncclEnv: 'ncclEnv',
  watchIntervalMinutes: 'watch.intervalMinutes',
  ncclTestsDir: 'ncclTestsDir',
} as const;

/** Tree item contexts (`viewItem` in menus). */
export const ContextValues = {
  host: 'gdrDoctor.host',
  removableHost: 'gdrDoctor.host.removable',
  rawOutput: 'gdrDoctor.rawOutput',
  /** Followed by `;fix=<id>` per quick fix the finding offers (src/vscode/fixes/contextValue.ts). */
  finding: 'gdrDoctor.finding',
  fleet: 'gdrDoctor.fleet',
  /** Followed by `;fix=<id>` per quick fix the group's findings offer (applied to every host of the group). */
  fleetGroup: 'gdrDoctor.fleetGroup',
  /** A host of a fleet reached through a login node: no direct SSH, so no host actions. */
  relayedHost: 'gdrDoctor.relayedHost',
  /** A GPU row of a host's GPUs: Prove GPUDirect RDMA measures that GPU. */
  gpu: 'gdrDoctor.gpu',
} as const;

/** Languages the extension contributes, with a grammar each (package.json `languages`, `grammars`). */
export const Languages = {
  /** NCCL's own log (NCCL_DEBUG=INFO), recognised by content. */
  ncclLog: 'nccl-log',
  /** Analyze NCCL Log's summary: wrapped, coloured by verdict, its `file:line` references links into the log. */
  ncclLogSummary: 'nccl-log-summary',
} as const;

/** Read-only documents with an nccl-tests output's summary, and with a proof with NCCL. */
export const NCCL_TESTS_SCHEME = 'gdr-doctor-nccl-tests';

/** Read-only documents with Analyze NCCL Log's summary of a log. */
export const NCCL_LOG_SUMMARY_SCHEME = 'gdr-doctor-nccl-log';

/**
 * Context keys the extension sets (package.json's `when` clauses read them). The `has…` keys describe
 * the hosts the palette's pickers offer; the walkthrough keys turn true once the user has done a step.
 */
export const ContextKeys = {
  /** The host list has been read once (before that, Diagnose stays in the palette: it reads the list). */
  hostsListed: 'gdrDoctor.hostsListed',
  hasHosts: 'gdrDoctor.hasHosts',
  hasDiagnosedHost: 'gdrDoctor.hasDiagnosedHost',
  hasTopology: 'gdrDoctor.hasTopology',
  hasConnection: 'gdrDoctor.hasConnection',
  hasFixableHost: 'gdrDoctor.hasFixableHost',
  hasRemovableHost: 'gdrDoctor.hasRemovableHost',
  hasFleets: 'gdrDoctor.hasFleets',
  /** The demo host is listed in the Hosts view. */
  demoOpen: 'gdrDoctor.demoOpen',
  findingSelected: 'gdrDoctor.walkthrough.findingSelected',
  topologyShown: 'gdrDoctor.walkthrough.topologyShown',
  hostAdded: 'gdrDoctor.walkthrough.hostAdded',
  fleetDiagnosed: 'gdrDoctor.walkthrough.fleetDiagnosed',
} as const;

/** The Getting Started walkthrough (package.json `contributes.walkthroughs`). */
export const WALKTHROUGH_ID = 'gdrDoctor.gettingStarted';

/** Read-only documents with a command's raw output: `gdr-doctor-raw:/<host>/<command>.txt`. */
export const RAW_OUTPUT_SCHEME = 'gdr-doctor-raw';

/** The extension's LogOutputChannel (Output view, and `Show Log`). */
export const OUTPUT_CHANNEL_NAME = 'GPUDirect RDMA';
