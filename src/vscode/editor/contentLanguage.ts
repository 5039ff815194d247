// Gives documents a language by what they hold, not by their name: `nvidia-smi topo -m` output and
// NCCL logs are saved as .txt or .log, or pasted into an untitled file. Checked when a document opens
// and on its first edit (a paste into a new untitled file); documents already open when the extension
// starts are checked once. A check reads a document's first lines only (a confirm step may read more
// once they look right), so ordinary files cost a few lines. A document is never switched twice, so a
// user who sets it back to Plain Text keeps that choice.
import * as vscode from 'vscode';
import { errorText } from '../../core/errorText';

export interface ContentLanguage {
  readonly id: string;
  /** What the log says it found (`nvidia-smi topo -m output`). */
  readonly what: string;
  /** The languages a document may be switched from (a `.log` file opens as `log`). */
  readonly from: readonly string[];
  /** URI schemes never switched (the extension's own documents, which quote what they explain). */
  readonly ignoreSchemes?: readonly string[];
  readonly withinLines: number;
  readonly nearTop: (lines: readonly string[]) => boolean;
  /** A second, costlier look once the first lines matched; absent: they decide. */
  readonly confirm?: (doc: vscode.TextDocument) => boolean;
}

export function registerContentLanguageDetection(
  language: ContentLanguage,
  log: vscode.LogOutputChannel,
  own: (registration: vscode.Disposable) => void,
): void {
  // Keyed by the document object: VS Code keeps one object while a document is open (a change of
  // language is a close and an open of that same object) and makes a new one when it is opened
  // again, so closed documents drop out of these sets by themselves.
  const decided = new WeakSet<vscode.TextDocument>();
  const editedOnce = new WeakSet<vscode.TextDocument>();
  const mayBe = (doc: vscode.TextDocument): boolean =>
    language.from.includes(doc.languageId) && !language.ignoreSchemes?.includes(doc.uri.scheme);
  const check = (doc: vscode.TextDocument): void => {
    if (!mayBe(doc) || decided.has(doc) || !nearTop(doc, language) || !(language.confirm?.(doc) ?? true)) return;
    decided.add(doc);
    vscode.languages.setTextDocumentLanguage(doc, language.id).then(
      () => log.info(`detected ${language.what} in ${doc.uri.scheme === 'file' ? doc.uri.fsPath : doc.uri.toString()}`),
      (e: unknown) => log.warn(`could not set the ${language.id} language: ${errorText(e)}`),
    );
  };
  own(vscode.workspace.onDidOpenTextDocument(check));
  own(
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.contentChanges.length === 0 || editedOnce.has(event.document)) return;
      editedOnce.add(event.document);
      check(event.document);
    }),
  );
  vscode.workspace.textDocuments.forEach(check);
}

function nearTop(doc: vscode.TextDocument, language: ContentLanguage): boolean {
  const count = Math.min(doc.lineCount, language.withinLines);
  return language.nearTop(Array.from({ length: count }, (_, i) => doc.lineAt(i).text));
}
