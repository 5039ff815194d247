// SshPrompts answered in VS Code: the host key as a modal (default No) showing the SHA256
// fingerprint, secrets in password input boxes. Answers go to the core only, never to the log.
// A keyboard-interactive question's name, instructions and prompt are the server's own text: the
// input box shows them through plainText (its prompt would render links).
import * as vscode from 'vscode';
import { HostKeyQuestion, SshPrompts } from '../../core/ssh/prompts';
import { plainText } from '../plainText';

export function inputBoxPrompts(): SshPrompts {
  return {
    async confirmHostKey(q: HostKeyQuestion) {
      const detail = vscode.l10n.t("The authenticity of host {0} can't be established.\n{1} key fingerprint is {2}.\n\nTrust it only if this fingerprint is the one the host's administrator gave you. It will be recorded in {3}.", q.host, q.keyType, q.fingerprint, q.knownHostsFile);
      const accept = vscode.l10n.t('Trust and Connect');
      const answer = await vscode.window.showWarningMessage(vscode.l10n.t('Unknown host key for {0}', q.host), { modal: true, detail }, accept);
      return answer === accept;
    },
    async passphrase(keyFile: string) {
      return ask(vscode.l10n.t('Passphrase for key {0}', keyFile), true);
    },
    async password(user: string, host: string) {
      return ask(vscode.l10n.t('Password for {0}@{1}', user, host), true);
    },
    async keyboardInteractive(host, name, instructions, prompts) {
      const answers: string[] = [];
      for (const p of prompts) {
        const title = [host, name].filter((t) => t !== '').join(': ');
        const answer = await ask(p.prompt.trim() || vscode.l10n.t('Response'), !p.echo, title, instructions);
        if (answer === null) return null;
        answers.push(answer);
      }
      return answers;
    },
  };
}

async function ask(prompt: string, secret: boolean, title?: string, placeHolder?: string): Promise<string | null> {
  const value = await vscode.window.showInputBox({
    prompt: plainText(prompt), title: title === undefined ? undefined : plainText(title), placeHolder: placeHolder || undefined, password: secret, ignoreFocusOut: true,
  });
  return value ?? null;
}
