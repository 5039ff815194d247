// Asks sudo's password in VS Code: a password input box, then a one-item multi-select quick pick
// that works as a checkbox, "Remember for this host (SecretStorage)". The answer goes to the caller
// only; nothing here logs it.
import * as vscode from 'vscode';
import { plainText } from '../plainText';
import { AskedPassword } from './sudoPassword';

export const REMEMBER_LABEL = 'Remember for this host (SecretStorage)';

export async function askSudoPassword(user: string, host: string, retry: boolean): Promise<AskedPassword | null> {
  const password = await vscode.window.showInputBox({
    title: plainText(`sudo on ${host}`),
    prompt: plainText(retry ? `The remembered sudo password of ${user} was rejected and forgotten. sudo password for ${user}@${host}` : `sudo password for ${user}@${host}`),
    password: true,
    ignoreFocusOut: true,
  });
  if (password === undefined || password === '') return null;
  const remember = await vscode.window.showQuickPick([{ label: REMEMBER_LABEL, description: 'kept in VS Code\'s secret storage, never in settings' }], {
    title: plainText(`sudo on ${host}: remember the password?`),
    placeHolder: 'Tick to remember it for this host; press Enter to go on',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (remember === undefined) return null;
  return { password, remember: remember.length > 0 };
}
