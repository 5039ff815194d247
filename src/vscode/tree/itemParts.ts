// The pieces every Hosts-view row is made of: icons by tone and severity, a TreeItem from its parts, and
// untrusted Markdown for tooltips (remote text only inside code blocks or escaped).
import * as vscode from 'vscode';
import type { Finding } from '../../core/diagnosis';
import type { Tone } from './nodes';

export const TONE_ICON: Record<Tone, vscode.ThemeIcon> = {
  ok: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground')),
  idle: new vscode.ThemeIcon('circle-outline'),
  working: new vscode.ThemeIcon('sync~spin'),
  unknown: new vscode.ThemeIcon('question'),
  done: new vscode.ThemeIcon('history'),
};

export const SEVERITY_ICON: Record<Finding['severity'], vscode.ThemeIcon> = {
  error: TONE_ICON.error,
  warning: TONE_ICON.warning,
  info: new vscode.ThemeIcon('info', new vscode.ThemeColor('notificationsInfoIcon.foreground')),
};

export function markdown(lines: string[]): vscode.MarkdownString {
  const md = new vscode.MarkdownString(lines.join('\n'));
  md.isTrusted = false;
  md.supportHtml = false;
  return md;
}

export interface ItemOptions {
  readonly description?: string;
  readonly icon?: vscode.ThemeIcon;
  readonly tooltip?: string | vscode.MarkdownString;
}

export function item(id: string, label: string, state: vscode.TreeItemCollapsibleState, o: ItemOptions): vscode.TreeItem {
  const t = new vscode.TreeItem(label, state);
  t.id = id;
  if (o.description) t.description = o.description;
  if (o.icon) t.iconPath = o.icon;
  if (o.tooltip) t.tooltip = o.tooltip;
  return t;
}
