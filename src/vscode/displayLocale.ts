// Dates and times as the display language writes them ("2026/12/3 17:42:26" in Chinese), where the rows,
// tooltips and the topology panel show when something happened. English keeps the runtime's own format.
// No VS Code import: extension.ts hands over vscode.env.language once, on activation.
let locale: string | undefined;

export function useDisplayLocale(language: string): void {
  locale = language.toLowerCase().startsWith('en') ? undefined : language;
}

/** Date and time: a tooltip's "Diagnosed …". */
export function dateTime(d: Date): string {
  return d.toLocaleString(locale);
}

/** Time of day only: what fits a sidebar row. */
export function timeOfDay(d: Date): string {
  return d.toLocaleTimeString(locale);
}
