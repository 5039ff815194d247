// Shows a failureNotice (hosts that could not be diagnosed) with what the user can do next: Retry
// those hosts, Open SSH Config (where most failures are mended: a HostName, a Port, an IdentityFile),
// Show Log (every host's own message). Host and fleet diagnoses both end here.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { readSettings } from '../config';
import { notifyError, notifyWarning } from '../notify';
import { FailureNotice } from './failureNotice';

export interface FailureActions {
  readonly log: vscode.LogOutputChannel;
  /** Diagnoses the failed hosts again. */
  readonly retry: (hosts: readonly string[]) => Promise<unknown>;
  /** The hosts were reached over SSH (not this machine or the demo): their SSH config may be the cause. */
  readonly ssh: boolean;
}

/** Logs the notice and shows it; the chosen action runs after the user picks it (the caller does not wait). */
export async function showFailureNotice(notice: FailureNotice, actions: FailureActions): Promise<void> {
  (notice.severity === 'error' ? actions.log.error : actions.log.warn).call(actions.log, notice.message);
  const retry = vscode.l10n.t('Retry');
  const openConfig = vscode.l10n.t('Open SSH Config');
  const showLog = vscode.l10n.t('Show Log');
  const choices = actions.ssh ? [retry, openConfig, showLog] : [retry, showLog];
  const choice = await (notice.severity === 'error' ? notifyError : notifyWarning)(notice.message, ...choices);
  if (choice === retry) await actions.retry(notice.hosts);
  else if (choice === openConfig) await openSshConfig();
  else if (choice === showLog) actions.log.show(true);
}

/** The SSH config gdr-doctor reads (gdrDoctor.sshConfigFile, else ~/.ssh/config); a new one opens unsaved at that path. */
export async function openSshConfig(): Promise<void> {
  const file = readSettings().sshConfigFile ?? path.join(os.homedir(), '.ssh', 'config');
  const uri = fs.existsSync(file) ? vscode.Uri.file(file) : vscode.Uri.file(file).with({ scheme: 'untitled' });
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
}
