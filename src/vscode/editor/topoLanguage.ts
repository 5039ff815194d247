// Gives plain-text documents that hold `nvidia-smi topo -m` output the nvidia-topo language, so
// they get its colours and hovers. Checked once when a document opens and once on its first edit
// (a paste into a new untitled file); a document is never switched twice, so a user who sets it
// back to Plain Text keeps that choice.
import * as vscode from 'vscode';
import { looksLikeTopoOutput } from '../../core/topology/topoTokens';
import { errorText } from '../../core/errorText';

export const TOPO_LANGUAGE_ID = 'nvidia-topo';
const PLAIN_TEXT = 'plaintext';

export function registerTopoLanguageDetection(log: vscode.LogOutputChannel): vscode.Disposable[] {
  const decided = new Set<string>();
  const editedOnce = new Set<string>();
  const check = (doc: vscode.TextDocument): void => {
    const key = doc.uri.toString();
    if (doc.languageId !== PLAIN_TEXT || decided.has(key) || !looksLikeTopoOutput(doc.getText())) return;
    decided.add(key);
    vscode.languages.setTextDocumentLanguage(doc, TOPO_LANGUAGE_ID).then(
      () => log.info(`detected nvidia-smi topo -m output in ${doc.uri.scheme === 'file' ? doc.uri.fsPath : key}`),
      (e: unknown) => log.warn(`could not set the ${TOPO_LANGUAGE_ID} language: ${errorText(e)}`),
    );
  };
  vscode.workspace.textDocuments.forEach(check);
  return [
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((event) => {
      const key = event.document.uri.toString();
      if (event.contentChanges.length === 0 || editedOnce.has(key)) return;
      editedOnce.add(key);
      check(event.document);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => editedOnce.delete(doc.uri.toString())),
  ];
}
