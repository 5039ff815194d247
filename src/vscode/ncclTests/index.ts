// nccl-tests outputs in the editor, read by the same reader as `gdr-doctor parse nccl-tests`: a lens at
// the top of a text or log document that holds one (what ran, the largest size's busbw), Problems for
// each result row that was cut or garbled, and Analyze nccl-tests Output's summary beside it. Also the
// read-only documents of Prove with NCCL.
import * as vscode from 'vscode';
import { Commands, Languages, NCCL_TESTS_SCHEME } from '../../constants';
import { parseNcclTests } from '../../core/ncclTests';
import type { NcclTestsRun } from '../../core/ncclTests';
import { lensText, looksLikeNcclTests, summarizeNcclTests } from '../../core/ncclTests/summaryText';
import { notifyInfo } from '../notify';
import { plainText } from '../plainText';
import { ReadOnlyTexts } from './texts';

/** Documents over this are not read live (Analyze reads them on request). */
const MAX_LIVE_CHARS = 16 * 1024 * 1024;
const SELECTOR: vscode.DocumentSelector = [{ language: 'plaintext' }, { language: 'log' }, { language: Languages.ncclLog }];

function runOf(doc: vscode.TextDocument): NcclTestsRun | null {
  if (doc.uri.scheme === NCCL_TESTS_SCHEME) return null;
  const text = doc.getText();
  if (text.length > MAX_LIVE_CHARS || !looksLikeNcclTests(text)) return null;
  const parsed = parseNcclTests(text);
  return parsed.ok && parsed.value.results.length + parsed.value.problems.length > 0 ? parsed.value : null;
}

function problems(doc: vscode.TextDocument, run: NcclTestsRun | null): vscode.Diagnostic[] {
  return (run?.problems ?? []).map((p) => {
    const line = doc.lineAt(Math.min(p.line - 1, doc.lineCount - 1));
    const d = new vscode.Diagnostic(
      line.range,
      p.kind === 'cut' ? vscode.l10n.t('nccl-tests row cut off: {0}', p.why) : vscode.l10n.t('nccl-tests row garbled: {0}', p.why),
      vscode.DiagnosticSeverity.Warning,
    );
    d.source = 'gdr-doctor';
    return d;
  });
}

export function registerNcclTestsEditor(own: <T extends vscode.Disposable>(registration: T) => T): ReadOnlyTexts {
  const texts = own(new ReadOnlyTexts());
  own(vscode.workspace.registerTextDocumentContentProvider(NCCL_TESTS_SCHEME, texts));
  const diagnostics = own(vscode.languages.createDiagnosticCollection('nccl-tests'));
  const changed = own(new vscode.EventEmitter<void>());
  const refresh = (doc: vscode.TextDocument) => {
    if (doc.uri.scheme === NCCL_TESTS_SCHEME || doc.uri.scheme === 'output') return;
    diagnostics.set(doc.uri, problems(doc, runOf(doc)));
    changed.fire();
  };
  own(vscode.workspace.onDidOpenTextDocument(refresh));
  own(vscode.workspace.onDidChangeTextDocument((e) => refresh(e.document)));
  own(vscode.workspace.onDidCloseTextDocument((doc) => diagnostics.delete(doc.uri)));
  vscode.workspace.textDocuments.forEach(refresh);
  own(
    vscode.languages.registerCodeLensProvider(SELECTOR, {
      onDidChangeCodeLenses: changed.event,
      provideCodeLenses(doc) {
        const run = runOf(doc);
        // A lens title turns `$(name)` into an icon: host names from the output go through plainText().
        return run
          ? [new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title: plainText(lensText(run)), command: Commands.analyzeNcclTests })]
          : [];
      },
    }),
  );
  return texts;
}

/** Analyze nccl-tests Output: the active document's summary, as `gdr-doctor parse nccl-tests` prints it. */
export async function analyzeNcclTests(texts: ReadOnlyTexts): Promise<void> {
  const doc = vscode.window.activeTextEditor?.document;
  const parsed = doc ? parseNcclTests(doc.getText()) : null;
  if (!doc || !parsed?.ok) {
    void notifyInfo(vscode.l10n.t('Open an nccl-tests output (all_reduce_perf … as printed, or its -J JSON) in the editor first.'));
    return;
  }
  const name = doc.uri.path.split('/').pop() || 'output';
  await texts.show(`${name} (nccl-tests summary)`, `${summarizeNcclTests(parsed.value)}\n`);
}
