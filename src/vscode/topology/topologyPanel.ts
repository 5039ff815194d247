// The topology webview panel: strict CSP (nonce'd bundle only), local resources limited to dist/
// and media/, data sent only after the page says `ready`, every message checked by the protocol's
// guards. One panel is reused; showing another topology replaces its data.
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { ExtensionToWebview, TopologyData, isWebviewToExtension } from '../../protocol/topology';

const VIEW_TYPE = 'gdrDoctor.topology';

export class TopologyPanel {
  private static current?: TopologyPanel;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];

  /** Shows `data` in the open panel, or opens one. */
  static show(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel, data: TopologyData): void {
    if (TopologyPanel.current) {
      TopologyPanel.current.panel.reveal();
      TopologyPanel.current.setData(data);
      return;
    }
    TopologyPanel.current = new TopologyPanel(extension, log, data);
  }

  private readonly panel: vscode.WebviewPanel;

  private constructor(extension: vscode.ExtensionContext, private readonly log: vscode.LogOutputChannel, private data: TopologyData) {
    const roots = [vscode.Uri.joinPath(extension.extensionUri, 'dist'), vscode.Uri.joinPath(extension.extensionUri, 'media')];
    this.panel = vscode.window.createWebviewPanel(VIEW_TYPE, panelTitle(data), vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: roots,
    });
    this.panel.webview.html = pageHtml(this.panel.webview, extension.extensionUri);
    this.panel.onDidDispose(() => this.dispose(), null, this.disposables);
    this.panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m), null, this.disposables);
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
      this.post({ type: 'topology', data: this.data });
      return;
    }
    await vscode.env.clipboard.writeText(message.text);
    this.post({ type: 'copied', label: message.label });
  }

  private post(message: ExtensionToWebview): void {
    void this.panel.webview.postMessage(message);
  }

  private dispose(): void {
    TopologyPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function panelTitle(data: TopologyData): string {
  return `Topology: ${data.title}`;
}

function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'topology.css'));
  const csp = `default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}';`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>GPUDirect RDMA topology</title>
</head>
<body>
<main id="root">Loading the topology…</main>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
