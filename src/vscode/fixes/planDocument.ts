// A long fix plan also opens as a read-only document (`gdr-doctor-plan:/<host>/<fix>.txt`), since a
// modal's detail text is hard to read past a screenful. The extension owns the provider (in the
// command context), so it goes with the extension; a plan's text is kept while its document is open.
import * as vscode from 'vscode';

export const PLAN_SCHEME = 'gdr-doctor-plan';
/** Plans longer than this many lines are also opened in an editor. */
export const LONG_PLAN_LINES = 18;

export class PlanDocuments implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, {
        provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === PLAN_SCHEME) this.texts.delete(doc.uri.toString());
      }),
    ];
  }

  async open(host: string, fixId: string, text: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${host.replace(/[/\\]/g, '_')}/${fixId}.txt` });
    this.texts.set(uri.toString(), text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.texts.clear();
  }
}
