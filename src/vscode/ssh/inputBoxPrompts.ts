// SshPrompts answered in VS Code: the host key as a modal (default No) showing the SHA256
// fingerprint, secrets in password input boxes. Answers go to the core only, never to the log.
// A keyboard-interactive question's name, instructions and prompt are the server's own text: the
// input box shows them through plainText (its prompt would render links).
import * as vscode from 'vscode';
import { HostKeyQuestion, SshPrompts } from '../../core/ssh/prompts';
import { plainText } from '../plainText';

const ACCEPT = 'Trust and Connect';

export function inputBoxPrompts(): SshPrompts {
  return {
    async confirmHostKey(q: HostKeyQuestion) {
      const detail =
        `The authenticity of host ${q.host} can't be established.\n` +
        `${q.keyType} key fingerprint is ${q.fingerprint}.\n\n` +
        `Trust it only if this fingerprint is the one the host's administrator gave you. ` +
        `It will be recorded in ${q.knownHostsFile}.`;
      const answer = await vscode.window.showWarningMessage(`Unknown host key for ${q.host}`, { modal: true, detail }, ACCEPT);
      return answer === ACCEPT;
    },
    async passphrase(keyFile: string) {
      return ask(`Passphrase for key ${keyFile}`, true);
    },
    async password(user: string, host: string) {
      return ask(`Password for ${user}@${host}`, true);
    },
    async keyboardInteractive(host, name, instructions, prompts) {
      const answers: string[] = [];
      for (const p of prompts) {
        const title = [host, name].filter((t) => t !== '').join(': ');
        const answer = await ask(p.prompt.trim() || 'Response', !p.echo, title, instructions);
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
