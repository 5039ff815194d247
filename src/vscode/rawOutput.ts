// Raw outputs as read-only documents, served from the host's last diagnosis (nothing is re-run):
// `gdr-doctor-raw:/<host id>/<command id>/<tab title>`, the tab titled with the command as a person
// names it and the host ("nvidia-smi topo -m — gpu01"). The content is the host's text, shown as text,
// in columns as the host printed them: tab stops every 8 (nvidia-smi aligns `topo -m` with tabs for
// a terminal), no wrapping for the matrix (package.json's configurationDefaults).
import * as vscode from 'vscode';
import { RAW_OUTPUT_SCHEME } from '../constants';
import { commandTitle } from '../core/probe/commandTitle';
import { rawOutputText } from '../core/probe/rawText';
import { HostModel } from './hosts/hostModel';

/** Terminal tab stops: the width nvidia-smi and the other tools assume when they align with tabs. */
export const TERMINAL_TAB_SIZE = 8;
/** A slash would split the title into path segments: the tab shows a division slash instead. */
const DIVISION_SLASH = '\u2215';

export function rawOutputUri(hostId: string, commandId: string, tabTitle: string): vscode.Uri {
  // The ids are encoded (a relayed host's id holds a slash); the title is shown as the tab's label, as written.
  const path = `/${encodeURIComponent(hostId)}/${encodeURIComponent(commandId)}/${tabTitle.replace(/\//g, DIVISION_SLASH)}`;
  return vscode.Uri.from({ scheme: RAW_OUTPUT_SCHEME, path });
}

/** "nvidia-smi topo -m — gpu01": the command as a person names it, and the host it ran on. */
export function rawOutputTitle(command: { readonly id: string; readonly command: string }, hostLabel: string): string {
  return `${commandTitle(command)} — ${hostLabel}`;
}

/** Opens one raw output in a preview tab, its columns as the host printed them. */
export async function showRawOutput(uri: vscode.Uri, language: string): Promise<void> {
  let doc = await vscode.workspace.openTextDocument(uri);
  // The title ends with the host name, whose dots would read as a file extension: say the language.
  if (doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
  const editor = await vscode.window.showTextDocument(doc, { preview: true });
  editor.options = { tabSize: TERMINAL_TAB_SIZE, insertSpaces: false };
}

export class RawOutputProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: { dispose(): void };

  constructor(private readonly model: HostModel) {
    // A new diagnosis replaces what open documents show.
    this.subscription = model.onDidChange(() => {
      for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === RAW_OUTPUT_SCHEME) this.changed.fire(doc.uri);
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const [hostPart, commandPart] = uri.path.split('/').filter((p) => p !== '');
    const hostId = decodeURIComponent(hostPart ?? '');
    const commandId = decodeURIComponent(commandPart ?? '');
    const last = this.model.status(hostId).lastDiagnosed;
    const c = last?.report.commands.find((x) => x.id === commandId);
    if (!last || !c) return `${vscode.l10n.t('(no output of {0} for this host: diagnose it first)', commandId)}\n`;
    // The output exactly as the host printed it, so it can be saved or analysed as is.
    return rawOutputText(c);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
