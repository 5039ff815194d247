// The OpenSSH side's work: the probe's own commands (src/core/probe/commands.ts), written as a user
// would type them after `ssh host '…'`: one after another, or all at once; every output on stdout.
import { ProbeCommandSpec } from '../src/core/probe/commands';

/**
 * One sh command line: the probe's environment (C locale, sbin on PATH), then each command in a
 * subshell — some commands end with `exit`, which must not end the whole line — with stderr
 * folded into stdout and a one-line header so the output can be read. Run in order, no `timeout`,
 * no framing: the plainest way to do the same work.
 */
export function sequentialCommand(commands: readonly ProbeCommandSpec[]): string {
  const steps = commands.map((c) => `echo '=== ${c.id}'; ( ${c.command} ) </dev/null 2>&1`);
  return ['LC_ALL=C; export LC_ALL; PATH=$PATH:/usr/sbin:/sbin; export PATH', ...steps].join('; ');
}

/**
 * The same commands as a user would write them to run at once: each in the background into a file
 * of its own (stderr folded in), wait for all, then print each file after the same `=== <id>` line,
 * in table order. No time limits, no framing: the plainest parallel script.
 */
export function parallelCommand(commands: readonly ProbeCommandSpec[]): string {
  const starts = commands.map((c, i) => `( ${c.command} ) </dev/null >"$d/${i}" 2>&1 &`);
  const prints = commands.map((c, i) => `echo '=== ${c.id}'; cat "$d/${i}"`);
  return [
    'LC_ALL=C; export LC_ALL; PATH=$PATH:/usr/sbin:/sbin; export PATH',
    'd=$(mktemp -d) || exit 1',
    ...starts,
    'wait',
    ...prints,
    'rm -rf "$d"',
  ].join('\n');
}
