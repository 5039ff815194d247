// Raw outputs as read-only documents: `gdr-doctor-raw:/<host id>/<command id>.txt`, served from
// the host's last diagnosis (nothing is re-run). The content is the host's text, shown as text.
import * as vscode from 'vscode';
import { RAW_OUTPUT_SCHEME } from '../constants';
import { HostModel } from './hosts/hostModel';

export function rawOutputUri(hostId: string, commandId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: RAW_OUTPUT_SCHEME, path: `/${encodeURIComponent(hostId)}/${encodeURIComponent(commandId)}.txt` });
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
    const [hostPart, filePart] = uri.path.split('/').filter((p) => p !== '');
    const hostId = decodeURIComponent(hostPart ?? '');
    const commandId = decodeURIComponent((filePart ?? '').replace(/\.txt$/, ''));
    const last = this.model.status(hostId).lastDiagnosed;
    const c = last?.report.commands.find((x) => x.id === commandId);
    if (!last || !c) return `(no output of ${commandId} for this host: diagnose it first)\n`;
    // The output exactly as the host printed it, so it can be saved or analysed as is.
    if (c.stderr.trim() === '') return c.stdout;
    return c.stdout.trim() === '' ? c.stderr : `${c.stdout}\n--- stderr ---\n${c.stderr}`;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
