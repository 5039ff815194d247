// Hover over a link token, device name or legend line of `nvidia-smi topo -m` output: what it
// means and what it means for GPUDirect RDMA. The words come from core; this only adapts them.
import * as vscode from 'vscode';
import { explainTopoToken } from '../../core/topology/topoHoverText';
import { TopoDocument, readTopoDocument, topoTokenAt } from '../../core/topology/topoTokens';
import { TOPO_LANGUAGE_ID } from './topoLanguage';

export class TopoHoverProvider implements vscode.HoverProvider {
  /** One parse per document version: moving the mouse across a matrix asks for many hovers. */
  private readonly parsed = new WeakMap<vscode.TextDocument, { version: number; topo: TopoDocument | null }>();

  provideHover(document: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const topo = this.read(document);
    if (!topo) return undefined;
    const hit = topoTokenAt(topo, position.line, position.character);
    if (!hit) return undefined;
    // Untrusted: no command links, no HTML, no theme icons from the document's text.
    const markdown = new vscode.MarkdownString(explainTopoToken(hit, topo.topology), false);
    markdown.isTrusted = false;
    markdown.supportHtml = false;
    const range = new vscode.Range(position.line, hit.start, position.line, hit.end);
    return new vscode.Hover(markdown, range);
  }

  private read(document: vscode.TextDocument): TopoDocument | null {
    const cached = this.parsed.get(document);
    if (cached && cached.version === document.version) return cached.topo;
    const topo = readTopoDocument(document.getText());
    this.parsed.set(document, { version: document.version, topo });
    return topo;
  }
}

export function registerTopoHover(): vscode.Disposable {
  return vscode.languages.registerHoverProvider({ language: TOPO_LANGUAGE_ID }, new TopoHoverProvider());
}
