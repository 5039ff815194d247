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

const RETRY = 'Retry';
const OPEN_SSH_CONFIG = 'Open SSH Config';
const SHOW_LOG = 'Show Log';

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
  const choices = actions.ssh ? [RETRY, OPEN_SSH_CONFIG, SHOW_LOG] : [RETRY, SHOW_LOG];
  const choice = await (notice.severity === 'error' ? notifyError : notifyWarning)(notice.message, ...choices);
  if (choice === RETRY) await actions.retry(notice.hosts);
  else if (choice === OPEN_SSH_CONFIG) await openSshConfig();
  else if (choice === SHOW_LOG) actions.log.show(true);
}

/** The SSH config gdr-doctor reads (gdrDoctor.sshConfigFile, else ~/.ssh/config); a new one opens unsaved at that path. */
export async function openSshConfig(): Promise<void> {
  const file = readSettings().sshConfigFile ?? path.join(os.homedir(), '.ssh', 'config');
  const uri = fs.existsSync(file) ? vscode.Uri.file(file) : vscode.Uri.file(file).with({ scheme: 'untitled' });
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
}
