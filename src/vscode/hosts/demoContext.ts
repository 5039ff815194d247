// Keeps the `gdrDoctor.demoOpen` context key in step with the host list, so Reset Demo Host is
// offered in the palette only while the demo host is there.
import * as vscode from 'vscode';
import { ContextKeys } from '../../constants';
import { HostModel } from './hostModel';

export function trackDemoOpen(model: HostModel): vscode.Disposable {
  let shown: boolean | undefined;
  const update = () => {
    const open = model.demoListed;
    if (open === shown) return;
    shown = open;
    void vscode.commands.executeCommand('setContext', ContextKeys.demoOpen, open);
  };
  update();
  const listener = model.onDidChange(update);
  return new vscode.Disposable(() => listener.dispose());
}
