// One log channel for the extension. Secrets never reach it: callers log what happened, not inputs.
import * as vscode from 'vscode';
import { OUTPUT_CHANNEL_NAME } from '../constants';

export function createLog(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME, { log: true });
}
