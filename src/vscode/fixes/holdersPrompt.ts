// disable-acs stopped because processes hold the GPUs or RDMA devices (core/fixes/holders.ts): the list in
// a modal's detail (host text, never rendered), and one button to go on anyway.
import * as vscode from 'vscode';
import { FixResult } from '../../core/fixes';

/** True when the user chose to reroute peer traffic under the listed processes. */
export async function confirmHolders(result: FixResult): Promise<boolean> {
  const go = vscode.l10n.t('Go On Anyway');
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t('Processes on {0} hold the GPUs or RDMA devices. Reroute peer traffic under them anyway?', result.host),
    { modal: true, detail: result.message },
    go,
  );
  return answer === go;
}
