// The editor features for `nvidia-smi topo -m` output: language detection and hovers. Colours come
// from the TextMate grammar that package.json contributes (syntaxes/nvidia-topo.tmLanguage.json).
import * as vscode from 'vscode';
import { registerTopoHover } from './topoHover';
import { registerTopoLanguageDetection } from './topoLanguage';

/** Registers the hovers and the language detection, handing each registration to `own` as it is made. */
export function registerTopoEditor(log: vscode.LogOutputChannel, own: (registration: vscode.Disposable) => void): void {
  own(registerTopoHover());
  registerTopoLanguageDetection(log, own);
}
