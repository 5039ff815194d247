// Analyze NCCL Log: the whole log, read as `gdr-doctor nccl-log` reads it, its summary (the same
// text) opened beside it with the comparisons of the hosts it is linked to. A file on disk streams
// from disk (a log too big for VS Code to hand to extensions included); an open document from memory,
// as it is in the editor. A cancellable progress notification; the event loop is handed back per chunk.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { analyzeNcclLogChunks, NcclLogAnalysis, textChunks } from '../../core/ncclLog/analysis';
import { comparisonText } from '../../core/ncclLog/compareReport';
import { ANALYZE_TEXT, megabytes } from '../../core/ncclLog/editorText';
import { summarizeNcclLogText } from '../../core/ncclLog/summaryText';
import { Ctx } from '../context';
import { notifyInfo, notifyWarning, withNotificationProgress } from '../notify';
import { NcclLogDocuments } from './documents';
import { comparisonsOfLog } from './links';

const READ_CHUNK_BYTES = 1024 * 1024;

export async function analyzeNcclLogCommand(ctx: Ctx): Promise<void> {
  const uri = activeLogUri();
  if (!uri) {
    void notifyInfo(ANALYZE_TEXT.noLog);
    return;
  }
  const name = NcclLogDocuments.nameOf(uri);
  const analysis = await readWholeLog(uri, name);
  if (!analysis) return;
  if (!analysis.summary) {
    void notifyWarning(ANALYZE_TEXT.notNccl(name, analysis.lines));
    return;
  }
  const compared = comparisonsOfLog(ctx.model, uri.toString()).map((c) => comparisonText(c.comparison));
  const text = [
    summarizeNcclLogText(analysis.summary),
    ...(analysis.complete ? [] : ['', ANALYZE_TEXT.stoppedEarly(analysis.readChars, analysis.lines)]),
    ...compared.flatMap((c) => ['', c]),
  ];
  await ctx.ncclLogs.summaries.show(uri, name, `${text.join('\n')}\n`);
  ctx.log.info(
    `Analyze NCCL Log: ${name}: ${analysis.lines} lines (${megabytes(analysis.readChars)}), verdict ${analysis.summary.verdict}`,
  );
}

/** The log in the active editor, or in the active tab when VS Code keeps a big file from extensions. */
export function activeLogUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.scheme !== 'output') return editor.document.uri;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri : undefined;
}

/** null when the user cancelled. */
function readWholeLog(uri: vscode.Uri, name: string): Thenable<NcclLogAnalysis | null> {
  return withNotificationProgress(ANALYZE_TEXT.progress(name), true, async (progress, token) => {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const chunks = doc
      ? textChunks(doc.getText())
      : uri.scheme === 'file'
        ? fileChunks(uri.fsPath)
        : textChunks(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    let shown = 0;
    return analyzeNcclLogChunks(chunks, name, {
      cancelled: () => token.isCancellationRequested,
      onProgress: (read) => {
        if (read - shown < 16 * READ_CHUNK_BYTES) return;
        shown = read;
        progress.report({ message: megabytes(read) });
      },
    });
  });
}

function fileChunks(file: string): AsyncIterable<string> {
  return fs.createReadStream(file, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
}
