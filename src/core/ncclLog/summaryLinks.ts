// Where Analyze NCCL Log's summary quotes a line of the log (`job.log:12: …`, evidence and the lines
// the reasons quote), so the editor can make each a link to that line. Found with indexOf, so a summary
// line costs its length whatever it holds.

export interface SummaryLogRef {
  /** 0-based columns of `<name>:<line>` in the summary's line. */
  readonly start: number;
  readonly end: number;
  /** 1-based line of the log. */
  readonly line: number;
}

/** Every `<name>:<n>:` in one line of the summary, where `name` is the log's name as the summary writes it. */
export function summaryLogRefs(text: string, name: string): SummaryLogRef[] {
  const refs: SummaryLogRef[] = [];
  if (name === '') return refs;
  for (let at = text.indexOf(`${name}:`); at >= 0; at = text.indexOf(`${name}:`, at + 1)) {
    const digits = at + name.length + 1;
    let end = digits;
    while (end < text.length && end - digits < 10 && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    if (end === digits || text[end] !== ':') continue;
    // Not the end of a longer name (`other-job.log:3:` when the log is `job.log`).
    const before = at === 0 ? ' ' : text[at - 1];
    if (before !== ' ' && before !== '>' && before !== '(') continue;
    refs.push({ start: at, end, line: Number(text.slice(digits, end)) });
  }
  return refs;
}
