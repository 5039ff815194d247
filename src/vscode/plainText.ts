// Text for the places where VS Code parses what it shows: a notification's message (also a progress
// notification's title and message) and an input box's prompt. VS Code renders
// `[label](https://…)`, `[label](file:…)` and `[label](command:id?args)` there as links, and runs
// the command when the user clicks it; a notification also turns `$(name)` into an icon. What
// gdr-doctor shows there often holds text that a host, a file or the network wrote: an SSH server's
// DISCONNECT message, what sudo or modprobe printed, a login node's srun or pdsh, a line of a
// workspace file. One click on `[Retry](command:workbench.action.terminal.sendSequence?…)` would
// type commands into the user's terminal. So every string shown there goes through plainText()
// (src/vscode/notify.ts does it for every notification).
//
// Why escape instead of moving host text into a modal's `detail` or the log: the user needs the
// host's own words where the failure is reported ("sudo: 3 incorrect password attempts",
// "Too many authentication failures"); a modal for every failed diagnose of a fleet would block the
// workbench, and "see the log" alone hides the reason. (Long remote text, such as a fix plan with a
// file's diff, goes to a modal's `detail`, which VS Code shows as plain text.)
//
// VS Code's parser has no escape character, and its link pattern needs `]` directly followed by
// `(`, its icon pattern `$` directly followed by `(`. plainText() puts an invisible U+200B ZERO
// WIDTH SPACE between the two: the text reads exactly as written, and no link or icon is made of
// it. VS Code turns newlines into spaces before it parses, which cannot rebuild either pattern.
// Pure (no vscode import), so it is unit-tested.

const ZERO_WIDTH_SPACE = '\u200b';

/** `text` as VS Code shows it in a notification or a prompt: every character kept, no link, no icon. */
export function plainText(text: string): string {
  return text.replace(/([\]$])\(/g, `$1${ZERO_WIDTH_SPACE}(`);
}
