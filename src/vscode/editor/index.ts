// The editor features for `nvidia-smi topo -m` output: language detection and hovers. Colours come
// from the TextMate grammar that package.json contributes (syntaxes/nvidia-topo.tmLanguage.json).
import * as vscode from 'vscode';
import { registerTopoHover } from './topoHover';
import { registerTopoLanguageDetection } from './topoLanguage';

export function registerTopoEditor(log: vscode.LogOutputChannel): vscode.Disposable[] {
  return [registerTopoHover(), ...registerTopoLanguageDetection(log)];
}
