// Ray folds lines that differ only in words holding digits into the last one printed, with
// " [repeated %dx across cluster]" after it, coloured, and the first time a note on RAY_DEDUP_LOGS
// (ray-project/ray python/ray/_private/ray_logging/__init__.py: _canonicalise_log_line, DedupState.formatted).
const RAY_REPEATED = /\[repeated (\d{1,9})x across cluster\]/y;
const RAY_MARK = ' [repeated ';

/** A message less Ray's de-duplication suffix, and how many folded lines it stood for (0: none). */
export function splitRayRepeat(message: string): { message: string; folded: number } {
  const at = message.lastIndexOf(RAY_MARK);
  if (at < 0) return { message, folded: 0 };
  RAY_REPEATED.lastIndex = at + 1;
  const m = RAY_REPEATED.exec(message);
  if (!m) return { message, folded: 0 };
  // Ray colours the suffix (ESC[32m before it): what precedes is NCCL's message.
  const before = message.slice(0, at);
  const colour = before.lastIndexOf('\u001b[');
  return { message: colour >= 0 && /^\u001b\[\d*m$/.test(before.slice(colour)) ? before.slice(0, colour) : before, folded: Number(m[1]) };
}
