// Analyze NCCL Log's result as a read-only document beside the log: the summary `gdr-doctor nccl-log`
// prints for the same file, then the comparisons with the hosts it is linked to. Served from memory;
// each log has one such document, updated when it is analysed again.
import * as vscode from 'vscode';
import { NCCL_LOG_SUMMARY_SCHEME } from '../../constants';

export class NcclLogSummaryDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** The document of a log's summary: its name in the path (the tab's title), the log's URI in the query. */
  static uriOf(log: vscode.Uri, name: string): vscode.Uri {
    const base = name.split('/').pop() || 'log';
    return vscode.Uri.from({ scheme: NCCL_LOG_SUMMARY_SCHEME, path: `/${base} (NCCL summary).txt`, query: log.toString() });
  }

  async show(log: vscode.Uri, name: string, text: string): Promise<vscode.TextDocument> {
    const uri = NcclLogSummaryDocuments.uriOf(log, name);
    const known = this.texts.has(uri.toString());
    this.texts.set(uri.toString(), text);
    if (known) this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
    return doc;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? `${vscode.l10n.t('(run Analyze NCCL Log on the log again)')}\n`;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
