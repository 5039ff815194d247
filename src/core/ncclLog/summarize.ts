// Gathers NCCL log lines into the summary of the job, one line at a time: feed it every line of
// every file (`add`), then ask for the summary. Memory grows with hosts, GPUs, NICs and distinct
// messages, not with the log's length.
import type { NcclLogLine, NcclMessage } from '../parsers/ncclLogTypes';
import { SummaryBudget, SummaryLimits } from './budget';
import { buildSummary } from './buildSummary';
import { HostState, LazyRef, MAX_REASONS_PER_HOST } from './hostState';
import { envReason, hcaDisabledReason, noRdmaDeviceReason, pluginGdrOffReason, ringsGdrOffReason, socketNetworkReason } from './reasons';
import type { SummaryState } from './summaryState';
import type { NcclLogFileStats, NcclLogSummary } from './types';

/** Distinct NCCL WARN texts kept (each with its count and first line). */
export const MAX_WARNINGS = 50;
/** Distinct NCCL_* names kept (NCCL reads a few dozen). */
const MAX_ENV = 200;
/** Evidence quotes a line up to this many characters. */
const MAX_QUOTE = 300;
export const NO_HOST = '(no host)';
/** The unlisted host that counts the lines of hosts past SUMMARY_LIMITS.hosts. */
const MORE_HOSTS = '(more hosts)';
const AFFINITY = 'Setting affinity for GPU ';

export class NcclLogSummarizer {
  private last: HostState | null = null;
  private readonly budget: SummaryBudget;
  private readonly s: SummaryState;

  /** `limits`: SUMMARY_LIMITS unless a test asks for smaller ones. */
  constructor(limits?: SummaryLimits) {
    this.budget = new SummaryBudget(limits);
    this.s = {
      budget: this.budget,
      more: new HostState(MORE_HOSTS, this.budget, false),
      rayFolded: 0,
      versions: new Map(),
      network: null,
      netFromConnections: null,
      hosts: new Map(),
      warnings: new Map(),
      env: new Map(),
      files: [],
      connectionLines: 0,
      warnLines: 0,
      cutLines: 0,
      firstCut: null,
    };
  }

  /** One NCCL message; `text` is its whole line as read, `file` names the file for evidence. */
  add(line: NcclLogLine, text: string, file: string): void {
    const ref: LazyRef = () => ({ file, line: line.line, column: line.column, text: quote(text.slice(line.column)) });
    if (line.cut) {
      this.s.cutLines++;
      this.s.firstCut ??= ref();
    }
    if (line.message.kind === 'connection') this.s.rayFolded += line.rayFolded;
    this.addMessage(line, line.message, ref);
  }

  /** A file was read to its end. */
  addFile(stats: NcclLogFileStats): void {
    this.s.files.push(stats);
  }

  summary(): NcclLogSummary {
    return buildSummary(this.s);
  }

  private host(line: NcclLogLine): HostState {
    const name = line.host ?? NO_HOST;
    // Consecutive lines mostly come from one host: skip the map then.
    if (this.last?.name === name) return this.last;
    let host = this.s.hosts.get(name);
    if (!host) {
      if (!this.budget.take('hosts')) return this.s.more;
      host = new HostState(name, this.budget);
      this.s.hosts.set(name, host);
    }
    this.last = host;
    return host;
  }

  private addMessage(line: NcclLogLine, m: NcclMessage, ref: LazyRef): void {
    switch (m.kind) {
      case 'version':
        if (!this.s.versions.has(m.nccl) && this.budget.take('versions')) this.s.versions.set(m.nccl, { cuda: m.cuda, ref: ref() });
        return;
      case 'network':
        this.s.network ??= m.name;
        this.host(line).network ??= m.name;
        if (m.name === 'Socket') this.host(line).addReason(socketNetworkReason(), ref);
        return;
      case 'net-devices':
        this.host(line).listNics(line, m.net, m.devices, m.found);
        if (!m.found && m.net !== 'Socket') this.host(line).addReason(noRdmaDeviceReason(m.net), ref);
        return;
      case 'hca-gdr':
        return this.addHcaGdr(line, m, ref);
      case 'gpu-dmabuf': {
        const gpu = this.host(line).gpuOf(line, m.dev);
        if (gpu) gpu.dmabuf = true;
        return;
      }
      case 'virtual-nic':
        return this.host(line).nameVirtualNic(line.pid, m.index, m.name);
      case 'pair-gdr':
        return this.addPairGdr(line, m, ref);
      case 'connection':
        this.s.connectionLines++;
        if (m.net && m.transport === 'NET') this.s.netFromConnections ??= m.net.name;
        return this.host(line).addConnection(line, m, ref);
      case 'comm':
        return this.addComm(line, m);
      default:
        return this.addNote(line, m, ref);
    }
  }

  private addNote(line: NcclLogLine, m: NcclMessage, ref: LazyRef): void {
    if (m.kind === 'rings-connected' && m.gdr === false) this.host(line).addReason(ringsGdrOffReason(), ref);
    if (m.kind === 'gdr-off') this.host(line).addReason(pluginGdrOffReason(m.text), ref);
    if (m.kind === 'env') {
      if (!this.s.env.has(m.name) && this.s.env.size < MAX_ENV) this.s.env.set(m.name, m.value);
      const reason = envReason(m.name, m.value);
      if (reason !== null) this.host(line).addReason(reason, ref);
    }
    if (m.kind === 'warn') this.addWarning(m.text, ref);
    // "Setting affinity for GPU %d to %s" (src/graph/topo.cc, 2.7+): the process drives a GPU, even where no
    // Init or connection line follows. Its number is NVML's only when NVML answered, so it does not name the GPU.
    if (m.kind === 'topology' && m.text.startsWith(AFFINITY)) this.host(line).gpuOf(line);
  }

  private addHcaGdr(line: NcclLogLine, m: Extract<NcclMessage, { kind: 'hca-gdr' }>, ref: LazyRef): void {
    const host = this.host(line);
    host.nameNic(line.pid, m.net, m.hca, m.name);
    if (!m.enabled) host.addReason(hcaDisabledReason(m.net, m.name, m.reason), ref);
    // Every HCA a line names is listed, Socket interfaces too (their GDR is always off, and no finding says otherwise).
    const hca = host.hca(m.name, m.net);
    if (!hca) return;
    hca.gdr = m.enabled ? hca.gdr !== false : false;
    if (!m.enabled) hca.reason ??= m.reason;
    if (m.mechanism !== null && /dma-?buf/i.test(m.mechanism) && m.enabled) hca.dmabuf = true;
  }

  /** Kept as printed; buildSummary names the HCA once the log's NCCL version says how to read its number. */
  private addPairGdr(line: NcclLogLine, m: Extract<NcclMessage, { kind: 'pair-gdr' }>, ref: LazyRef): void {
    if (m.enabled || m.distance === null || m.threshold === null) return;
    const host = this.host(line);
    const key = `${m.gpu}|${m.hca}|${m.distance}|${m.threshold}`;
    if (host.listed && !host.disabledPairs.has(key) && host.disabledPairs.size < MAX_REASONS_PER_HOST && this.budget.take('reasons')) {
      host.disabledPairs.set(key, { gpu: m.gpu, hca: m.hca, pid: line.pid, distance: m.distance, threshold: m.threshold, ref: ref() });
    }
  }

  private addComm(line: NcclLogLine, m: Extract<NcclMessage, { kind: 'comm' }>): void {
    const host = this.host(line);
    const gpu = host.listed ? host.gpus.name(line.pid, line.dev ?? m.cudaDev, { busId: m.busId, nvmlDev: m.nvmlDev }) : null;
    if (gpu) this.budget.addRank(gpu.ranks, m.rank);
    this.budget.addRank(host.ranks, m.rank);
  }

  private addWarning(text: string, ref: LazyRef): void {
    this.s.warnLines++;
    const seen = this.s.warnings.get(text);
    if (seen) seen.count++;
    else if (this.s.warnings.size < MAX_WARNINGS) this.s.warnings.set(text, { count: 1, first: ref() });
  }
}

function quote(text: string): string {
  const t = text.trimEnd();
  return t.length > MAX_QUOTE ? `${t.slice(0, MAX_QUOTE)}…` : t;
}
