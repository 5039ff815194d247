// Hover over an NCCL log line: what the line kind or the transport name under the cursor means and
// which NCCL source prints it (the words are core's). Reads only the hovered line.
import * as vscode from 'vscode';
import { Languages } from '../../constants';
import { ncclLogHoverAt } from '../../core/ncclLog/hover';
import { plain } from '../../core/report/diagnosisReport';

export function registerNcclLogHover(): vscode.Disposable {
  return vscode.languages.registerHoverProvider({ language: Languages.ncclLog }, {
    provideHover(document, position) {
      const hit = ncclLogHoverAt(document.lineAt(position.line).text, position.character);
      if (!hit) return undefined;
      // Our own words only (the log's text is never put into the hover): no command links, no HTML.
      const parts = hit.explanations.flatMap((e) => [`**${plain(e.title)}**: ${e.text}`, '', `_${vscode.l10n.t('Printed by {0}', plain(e.source))}_`, '']);
      const markdown = new vscode.MarkdownString(parts.join('\n'), false);
      markdown.isTrusted = false;
      markdown.supportHtml = false;
      return new vscode.Hover(markdown, new vscode.Range(position.line, hit.start, position.line, hit.end));
    },
  });
}
