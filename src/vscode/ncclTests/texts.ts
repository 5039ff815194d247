// Read-only documents served from memory (an nccl-tests output's summary, a proof with NCCL), opened
// beside the editor; one document per title, updated when it is shown again.
import * as vscode from 'vscode';
import { NCCL_TESTS_SCHEME } from '../../constants';

export class ReadOnlyTexts implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  async show(title: string, text: string): Promise<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: NCCL_TESTS_SCHEME, path: `/${title.replace(/[/\\]/g, '_')}.txt` });
    const known = this.texts.has(uri.toString());
    this.texts.set(uri.toString(), text);
    if (known) this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
    return doc;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.changed.dispose();
  }
}
