// Gives plain-text documents that hold `nvidia-smi topo -m` output the nvidia-topo language, so
// they get its colours and hovers (*.topo.txt files get it from package.json). The whole text is
// parsed only when one of the first lines is a matrix header (contentLanguage.ts says when it looks).
import * as vscode from 'vscode';
import { DETECT_HEADER_WITHIN_LINES, looksLikeTopoOutput, topoHeaderNearTop } from '../../core/topology/topoTokens';
import { registerContentLanguageDetection } from './contentLanguage';

export const TOPO_LANGUAGE_ID = 'nvidia-topo';
export const PLAIN_TEXT = 'plaintext';

export function registerTopoLanguageDetection(log: vscode.LogOutputChannel, own: (registration: vscode.Disposable) => void): void {
  registerContentLanguageDetection(
    {
      id: TOPO_LANGUAGE_ID,
      what: 'nvidia-smi topo -m output',
      from: [PLAIN_TEXT],
      withinLines: DETECT_HEADER_WITHIN_LINES,
      nearTop: topoHeaderNearTop,
      confirm: (doc) => looksLikeTopoOutput(doc.getText()),
    },
    log,
    own,
  );
}
