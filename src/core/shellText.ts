// The one way gdr-doctor writes text into a shell line: every word it did not write itself (a host's
// device names, a node list, a suggested NCCL value, a script handed to `sh -c`) is single-quoted, which
// POSIX sh reads literally whatever it holds. The probe, prove and relay scripts, the CLI's report, the
// exported Markdown report and the topology panel's Copy buttons all go through here.

/** `'text'` as POSIX sh reads it literally (a `'` inside becomes `'\''`). */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `NAME='value'` as a POSIX shell reads it. The value is kept exactly: NCCL_IB_HCA's leading `=` (NCCL's
 * exact-match prefix: searchExact in net_ib's init) survives as the first character inside the quotes.
 */
export function shellAssignment(name: string, value: string): string {
  if (!VARIABLE_NAME.test(name)) throw new Error(`not a shell variable name: ${JSON.stringify(name)}`);
  return `${name}=${shQuote(value)}`;
}
