// Every open document in the nccl-log language, analysed: the job's summary and its marks, shown in
// the Problems panel. A document is read again after edits settle. Reading is streamed a chunk at a
// time with the event loop handed back in between, and stops after LIVE_LIMIT_CHARS (the summary lens
// says so; Analyze NCCL Log reads the whole file), so a huge log never stalls the extension host.
// Documents VS Code does not hand to extensions at all (over 50 MB) are read by Analyze NCCL Log only.
import * as vscode from 'vscode';
import { Languages } from '../../constants';
import { analyzeNcclLogChunks, LIVE_LIMIT_CHARS, NcclLogAnalysis, textChunks } from '../../core/ncclLog/analysis';
import { MarkSeverity, NcclLogMark, rewordSocketMarks } from '../../core/ncclLog/marks';
import { errorText } from '../../core/errorText';

const SETTLE_MS = 400;
const DIAGNOSTIC_SOURCE = 'gdr-doctor';

export interface DocumentAnalysis {
  readonly uri: vscode.Uri;
  readonly version: number;
  readonly analysis: NcclLogAnalysis;
}

const SEVERITY: Record<MarkSeverity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export class NcclLogDocuments implements vscode.Disposable {
  private readonly analyses = new Map<string, DocumentAnalysis>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection(Languages.ncclLog);
  private readonly changed = new vscode.EventEmitter<DocumentAnalysis>();
  /** A document's analysis is new. */
  readonly onDidAnalyze = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  /** `rdmaOf`: RDMA ports known to exist where the log ran (the hosts it is compared with), for its Socket marks. */
  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly rdmaOf: (uri: string) => string[],
  ) {
    this.subscriptions = [
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => e.contentChanges.length > 0 && this.schedule(e.document, SETTLE_MS)),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
    ];
    vscode.workspace.textDocuments.forEach((d) => this.schedule(d, 0));
  }

  get(uri: vscode.Uri): DocumentAnalysis | undefined {
    return this.analyses.get(uri.toString());
  }

  /** The name evidence gives a document: its path in the workspace, else its file name. */
  static nameOf(uri: vscode.Uri): string {
    return uri.scheme === 'file' ? vscode.workspace.asRelativePath(uri, false) : uri.path.split('/').pop() || uri.toString();
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.subscriptions.forEach((s) => s.dispose());
    this.diagnostics.dispose();
    this.changed.dispose();
  }

  private schedule(doc: vscode.TextDocument, delayMs: number): void {
    if (doc.languageId !== Languages.ncclLog) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.analyze(doc).catch((e: unknown) => this.log.error(`NCCL log ${NcclLogDocuments.nameOf(doc.uri)}: ${errorText(e)}`));
      }, delayMs),
    );
  }

  private async analyze(doc: vscode.TextDocument): Promise<void> {
    const version = doc.version;
    const name = NcclLogDocuments.nameOf(doc.uri);
    const stale = () => doc.isClosed || doc.version !== version || doc.languageId !== Languages.ncclLog;
    const analysis = await analyzeNcclLogChunks(textChunks(doc.getText()), name, { limitChars: LIVE_LIMIT_CHARS, cancelled: stale });
    if (!analysis || stale()) return;
    const entry = { uri: doc.uri, version, analysis };
    this.analyses.set(doc.uri.toString(), entry);
    this.publish(entry);
    if (!analysis.complete) this.log.info(`NCCL log ${name}: live marks cover the first ${analysis.lines} lines`);
    this.changed.fire(entry);
  }

  /** Shows every document's marks again (what is known about the hosts it ran on changed). */
  refreshMarks(): void {
    for (const entry of this.analyses.values()) this.publish(entry);
  }

  private publish(entry: DocumentAnalysis): void {
    const marks = rewordSocketMarks(entry.analysis.marks, this.rdmaOf(entry.uri.toString()));
    this.diagnostics.set(
      entry.uri,
      marks.map((m) => toDiagnostic(entry.uri, m)),
    );
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.analyses.delete(key);
    this.diagnostics.delete(uri);
  }
}

/** One entry per cause; the cause's other lines as related information, each a link to its line (rust-analyzer's way). */
function toDiagnostic(uri: vscode.Uri, m: NcclLogMark): vscode.Diagnostic {
  const d = new vscode.Diagnostic(new vscode.Range(m.line - 1, m.start, m.line - 1, m.end), m.message, SEVERITY[m.severity]);
  d.source = DIAGNOSTIC_SOURCE;
  d.code = m.kind;
  d.relatedInformation = m.related.map(
    (r) =>
      new vscode.DiagnosticRelatedInformation(
        new vscode.Location(uri, new vscode.Range(r.line - 1, r.start, r.line - 1, r.end)),
        r.message,
      ),
  );
  return d;
}
