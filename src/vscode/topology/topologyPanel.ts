// The topology webview panel: strict CSP (nonce'd bundle only), local resources limited to dist/
// and media/, data sent only after the page says `ready`, every message checked by the protocol's
// guards. One panel is reused; showing another topology replaces its data. The extension owns it
// through TopologyPanels (in the command context), so it closes with the extension.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { ExtensionToWebview, TopologyData, isWebviewToExtension } from '../../protocol/topology';

const VIEW_TYPE = 'gdrDoctor.topology';

/** The topology panel of this extension: at most one, reused, and closed when the extension is disposed. */
export class TopologyPanels implements vscode.Disposable {
  private current?: TopologyPanel;

  constructor(
    private readonly extension: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /**
   * Shows `data` in the open panel, or opens one; `beside`: next to the active editor, never in its place.
   * `onBanner`: what the banner's button does (the page only says it was clicked).
   */
  show(data: TopologyData, where: { beside?: boolean; onBanner?: () => void } = {}): void {
    const column = where.beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
    if (this.current) {
      this.current.reveal(data, column, where.onBanner);
      return;
    }
    this.current = new TopologyPanel(this.extension, this.log, data, column, () => (this.current = undefined));
    this.current.onBanner = where.onBanner;
  }

  dispose(): void {
    this.current?.close();
  }
}

class TopologyPanel {
  onBanner: (() => void) | undefined;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly panel: vscode.WebviewPanel;

  constructor(
    extension: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private data: TopologyData,
    column: vscode.ViewColumn,
    onClosed: () => void,
  ) {
    const roots = [vscode.Uri.joinPath(extension.extensionUri, 'dist'), vscode.Uri.joinPath(extension.extensionUri, 'media')];
    this.panel = vscode.window.createWebviewPanel(VIEW_TYPE, panelTitle(data), column, {
      enableScripts: true,
      localResourceRoots: roots,
    });
    this.panel.webview.html = pageHtml(this.panel.webview, extension.extensionUri);
    this.panel.onDidDispose(
      () => {
        onClosed();
        for (const d of this.disposables.splice(0)) d.dispose();
      },
      null,
      this.disposables,
    );
    this.panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m), null, this.disposables);
  }

  /** Beside: moved next to the active editor only when it shares that editor's group (it would hide it). */
  reveal(data: TopologyData, column: vscode.ViewColumn, onBanner: (() => void) | undefined): void {
    this.onBanner = onBanner;
    const editorColumn = vscode.window.activeTextEditor?.viewColumn;
    const hides = column === vscode.ViewColumn.Beside && editorColumn !== undefined && this.panel.viewColumn === editorColumn;
    this.panel.reveal(hides ? vscode.ViewColumn.Beside : undefined);
    this.setData(data);
  }

  /** Closes the panel; its onDidDispose then releases the rest. */
  close(): void {
    this.panel.dispose();
  }

  private setData(data: TopologyData): void {
    this.data = data;
    this.panel.title = panelTitle(data);
    if (this.ready) this.post({ type: 'topology', data });
  }

  private async receive(message: unknown): Promise<void> {
    if (!isWebviewToExtension(message)) {
      this.log.warn('topology view: ignored a message that is not part of the protocol');
      return;
    }
    if (message.type === 'ready') {
      // A reload of the page (theme change, reveal after being hidden) says ready again: resend.
      this.ready = true;
      // The page's own words in the display language, before anything is drawn (none: English).
      this.post({ type: 'l10n', bundle: vscode.l10n.bundle ?? {} });
      this.post({ type: 'topology', data: this.data });
      return;
    }
    if (message.type === 'bannerAction') {
      this.onBanner?.();
      return;
    }
    await vscode.env.clipboard.writeText(message.text);
    this.post({ type: 'copied', label: message.label });
  }

  private post(message: ExtensionToWebview): void {
    void this.panel.webview.postMessage(message);
  }
}

function panelTitle(data: TopologyData): string {
  return vscode.l10n.t('Topology: {0}', data.title);
}

/** Our own translated words go into the page's HTML: escaped all the same (a translation may hold < or &). */
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'topology.css'));
  const csp = `default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}';`;
  return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>${escapeHtml(vscode.l10n.t('GPUDirect RDMA topology'))}</title>
</head>
<body>
<main id="root">${escapeHtml(vscode.l10n.t('Loading the topology…'))}</main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
