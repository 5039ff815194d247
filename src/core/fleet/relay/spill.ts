// A relayed fleet at scale keeps, per node, only what its summary needs: the diagnosis, each command's
// state without its output, and the facts the fleet's comparisons read (topology, GPUs, NUMA nodes, the
// PCI tree). The command outputs (the bulk: a node's `nvidia-smi -q` alone is ~80 KB) go to a file of a
// private temporary folder as soon as the node is parsed, and are read back, the rest of the report
// parsed again from them exactly as the probe parsed it, when a node is opened (`--json`, `--each`).
// Everything kept is copied out of the node's output text (detach: a string cut from a node's output would
// keep all of that output alive), each text once for the whole run (nodes of a fleet mostly say the same
// things: a finding's explanation, an evidence line, a device name). The folder is removed by remove(),
// or when the process exits.
import { rmSync } from 'fs';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Diagnosis } from '../../diagnosis';
import type { CommandResult } from '../../probe/frames';
import { ProbeFacts, parseProbe } from '../../probe/facts';
import type { ProbeReport } from '../../probe/runProbe';

/** The facts the fleet's comparisons read (topologyDiff.ts, pcieDiff.ts); the rest is parsed again on reading back. */
const SUMMARY_FACTS = ['topo', 'gpus', 'numactl', 'pci-sysfs'] as const;

/** A node's report, kept small: its outputs are in `file`. */
export interface SpilledNode {
  readonly report: ProbeReport;
  readonly diagnosis: Diagnosis;
  readonly file: string;
}

export class RelaySpill {
  private files = 0;
  /** Every text kept so far, each once (its own copy: see detach). */
  private readonly texts = new Map<string, string>();
  private readonly onExit = () => rmSync(this.dir, { recursive: true, force: true });

  private constructor(readonly dir: string) {
    process.once('exit', this.onExit);
  }

  /** A fresh folder (mkdtemp: 0700) under the system's temporary folder. */
  static async create(): Promise<RelaySpill> {
    return new RelaySpill(await fs.mkdtemp(path.join(os.tmpdir(), 'gdr-doctor-relay-')));
  }

  /** Writes the report's outputs to a file of their own; the small report and diagnosis to keep instead. */
  async keep(report: ProbeReport, diagnosis: Diagnosis): Promise<SpilledNode> {
    const file = path.join(this.dir, `${this.files++}.json`);
    await fs.writeFile(file, JSON.stringify(report.commands), { mode: 0o600, flag: 'wx' });
    // The commands' other fields are the probe's own (ids, command lines, numbers): shared, not copied.
    const commands = report.commands.map((c) => ({ ...c, stdout: '', stderr: '' }));
    const facts = Object.fromEntries(SUMMARY_FACTS.filter((id) => report.facts[id] !== undefined).map((id) => [id, report.facts[id]]));
    const kept = { ...report, commands: [], facts: {}, notes: this.detach(report.notes) } as ProbeReport;
    return { report: { ...kept, commands, facts: this.detach(facts) as ProbeFacts }, diagnosis: this.detach(diagnosis), file };
  }

  /** A deep copy of `value` whose strings are the run's own copies (no slice of a node's output survives in it). */
  private detach<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.detach(v)) as T;
    if (value instanceof Map) return new Map([...value].map(([k, v]) => [this.detach(k), this.detach(v)])) as T;
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.detach(v)])) as T;
  }

  private text(s: string): string {
    const known = this.texts.get(s);
    if (known !== undefined) return known;
    // Through a Buffer: a new string of its own, not a slice of the one it came from.
    const own = Buffer.from(s, 'utf8').toString('utf8');
    this.texts.set(own, own);
    return own;
  }

  /** The whole report of a kept node: `kept` (with any notes added since) and its outputs read back, every fact parsed again. */
  async load(kept: ProbeReport, file: string): Promise<ProbeReport> {
    const commands = JSON.parse(await fs.readFile(file, 'utf8')) as CommandResult[];
    return { ...kept, commands, facts: parseProbe(commands) };
  }

  async remove(): Promise<void> {
    process.removeListener('exit', this.onExit);
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}
