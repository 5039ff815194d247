// Analyze NCCL Log's result as a read-only document beside the log: the summary `gdr-doctor nccl-log`
// prints for the same file, then the comparisons with the hosts it is linked to. Served from memory;
// each log has one such document, updated when it is analysed again. It opens in the nccl-log-summary
// language (wrapped, coloured by verdict), and each `job.log:12` it quotes is a link to that line.
import * as vscode from 'vscode';
import { Languages, NCCL_LOG_SUMMARY_SCHEME } from '../../constants';
import { summaryLogRefs } from '../../core/ncclLog/summaryLinks';

export class NcclLogSummaryDocuments implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  /** The log each summary document speaks of, and the name its evidence gives it. */
  private readonly logs = new Map<string, { log: vscode.Uri; name: string }>();
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
    this.logs.set(uri.toString(), { log, name });
    if (known) this.changed.fire(uri);
    const doc = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(uri), Languages.ncclLogSummary);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
    // The summary is read beside the log: the two halves of the window, not a narrow column.
    await vscode.commands.executeCommand('workbench.action.evenEditorWidths');
    return doc;
  }

  /** Links from the `<log>:<line>` references of a summary document to those lines of the log. */
  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const of = this.logs.get(doc.uri.toString());
    if (!of) return [];
    const links: vscode.DocumentLink[] = [];
    for (let i = 0; i < doc.lineCount; i++) {
      for (const ref of summaryLogRefs(doc.lineAt(i).text, of.name)) {
        const link = new vscode.DocumentLink(new vscode.Range(i, ref.start, i, ref.end), of.log.with({ fragment: `L${ref.line}` }));
        link.tooltip = vscode.l10n.t('Go to line {0} of the log', ref.line);
        links.push(link);
      }
    }
    return links;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? `${vscode.l10n.t('(run Analyze NCCL Log on the log again)')}\n`;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
