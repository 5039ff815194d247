// Gives plain-text documents that hold `nvidia-smi topo -m` output the nvidia-topo language, so
// they get its colours and hovers (*.topo.txt files get it from package.json). Checked when a
// document opens and on its first edit (a paste into a new untitled file); documents already open
// when the extension starts are checked once. A check reads a document's first lines and parses
// the whole text only when one of them is a matrix header, so ordinary files cost a few lines.
// A document is never switched twice, so a user who sets it back to Plain Text keeps that choice.
import * as vscode from 'vscode';
import { DETECT_HEADER_WITHIN_LINES, looksLikeTopoOutput, topoHeaderNearTop } from '../../core/topology/topoTokens';
import { errorText } from '../../core/errorText';

export const TOPO_LANGUAGE_ID = 'nvidia-topo';
export const PLAIN_TEXT = 'plaintext';

export function registerTopoLanguageDetection(log: vscode.LogOutputChannel, own: (registration: vscode.Disposable) => void): void {
  // Keyed by the document object: VS Code keeps one object while a document is open (a change of
  // language is a close and an open of that same object) and makes a new one when it is opened
  // again, so closed documents drop out of these sets by themselves.
  const decided = new WeakSet<vscode.TextDocument>();
  const editedOnce = new WeakSet<vscode.TextDocument>();
  const check = (doc: vscode.TextDocument): void => {
    if (doc.languageId !== PLAIN_TEXT || decided.has(doc) || !headerNearTop(doc) || !looksLikeTopoOutput(doc.getText())) return;
    decided.add(doc);
    vscode.languages.setTextDocumentLanguage(doc, TOPO_LANGUAGE_ID).then(
      () => log.info(`detected nvidia-smi topo -m output in ${doc.uri.scheme === 'file' ? doc.uri.fsPath : doc.uri.toString()}`),
      (e: unknown) => log.warn(`could not set the ${TOPO_LANGUAGE_ID} language: ${errorText(e)}`),
    );
  };
  own(vscode.workspace.onDidOpenTextDocument(check));
  own(vscode.workspace.onDidChangeTextDocument((event) => {
    if (event.contentChanges.length === 0 || editedOnce.has(event.document)) return;
    editedOnce.add(event.document);
    check(event.document);
  }));
  vscode.workspace.textDocuments.forEach(check);
}

function headerNearTop(doc: vscode.TextDocument): boolean {
  const count = Math.min(doc.lineCount, DETECT_HEADER_WITHIN_LINES);
  return topoHeaderNearTop(Array.from({ length: count }, (_, i) => doc.lineAt(i).text));
}
