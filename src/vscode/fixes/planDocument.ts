// A long fix plan also opens as a read-only document (`gdr-doctor-plan:/<host>/<fix>.txt`), since a
// modal's detail text is hard to read past a screenful. The provider is registered on first use and
// disposed with the extension.
import * as vscode from 'vscode';

export const PLAN_SCHEME = 'gdr-doctor-plan';
/** Plans longer than this many lines are also opened in an editor. */
export const LONG_PLAN_LINES = 18;

const texts = new Map<string, string>();
let registered = false;

export async function openPlanDocument(extension: vscode.ExtensionContext, host: string, fixId: string, text: string): Promise<void> {
  if (!registered) {
    registered = true;
    extension.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, { provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? '' }),
      { dispose: () => { registered = false; texts.clear(); } },
    );
  }
  const uri = vscode.Uri.from({ scheme: PLAN_SCHEME, path: `/${host.replace(/[/\\]/g, '_')}/${fixId}.txt` });
  texts.set(uri.toString(), text);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
}
