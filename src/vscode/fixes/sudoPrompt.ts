// Asks sudo's password in VS Code: a password input box, then a one-item multi-select quick pick
// that works as a checkbox, "Remember for this host (SecretStorage)". The answer goes to the caller
// only; nothing here logs it.
import * as vscode from 'vscode';
import { plainText } from '../plainText';
import { AskedPassword } from './sudoPassword';

export async function askSudoPassword(user: string, host: string, retry: boolean): Promise<AskedPassword | null> {
  const password = await vscode.window.showInputBox({
    title: plainText(vscode.l10n.t('sudo on {0}', host)),
    prompt: plainText(retry ? vscode.l10n.t('The remembered sudo password of {0} was rejected and forgotten. sudo password for {0}@{1}', user, host) : vscode.l10n.t('sudo password for {0}@{1}', user, host)),
    password: true,
    ignoreFocusOut: true,
  });
  if (password === undefined || password === '') return null;
  const remember = await vscode.window.showQuickPick([{ label: vscode.l10n.t('Remember for this host (SecretStorage)'), description: vscode.l10n.t("kept in VS Code's secret storage, never in settings") }], {
    title: plainText(vscode.l10n.t('sudo on {0}: remember the password?', host)),
    placeHolder: vscode.l10n.t('Tick to remember it for this host; press Enter to go on'),
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (remember === undefined) return null;
  return { password, remember: remember.length > 0 };
}
