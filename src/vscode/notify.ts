// Every notification gdr-doctor shows goes through here, so that no text from a host, a file or
// the network is ever rendered as a link or an icon: see plainText.ts for why and how. Modal
// questions (vscode.window.show*Message with `modal: true`) show their `detail` as plain text and
// are asked where they are needed.
import * as vscode from 'vscode';
import { plainText } from './plainText';

export function notifyInfo<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
  return vscode.window.showInformationMessage(plainText(message), ...actions);
}

export function notifyWarning<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
  return vscode.window.showWarningMessage(plainText(message), ...actions);
}

export function notifyError<T extends string>(message: string, ...actions: T[]): Thenable<T | undefined> {
  return vscode.window.showErrorMessage(plainText(message), ...actions);
}

/** A notification whose "Show Log" action opens the log, where the caller has written the details. */
export async function notifyWithLog(severity: 'info' | 'error', message: string, log: vscode.LogOutputChannel): Promise<void> {
  const showLog = vscode.l10n.t('Show Log');
  const choice = await (severity === 'error' ? notifyError : notifyInfo)(message, showLog);
  if (choice === showLog) log.show(true);
}

/** A progress notification; its title and every reported message are shown as plain text too. */
export function withNotificationProgress<R>(
  title: string,
  cancellable: boolean,
  work: (progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken) => Thenable<R>,
): Thenable<R> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: plainText(title), cancellable }, (progress, token) =>
    work({ report: (step) => progress.report(step.message === undefined ? step : { ...step, message: plainText(step.message) }) }, token));
}

/** A cancellable progress notification whose Cancel aborts the signal handed to `work`. */
export function withAbortableProgress<R>(
  title: string,
  work: (progress: vscode.Progress<{ message?: string; increment?: number }>, signal: AbortSignal) => Promise<R>,
): Thenable<R> {
  return withNotificationProgress(title, true, async (progress, token) => {
    const abort = new AbortController();
    const cancel = token.onCancellationRequested(() => abort.abort());
    try {
      return await work(progress, abort.signal);
    } finally {
      cancel.dispose();
    }
  });
}
