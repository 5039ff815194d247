// Whether a text is an NCCL log, from its first lines only, so an editor can decide on every opened
// file at the cost of a few thousand indexOf calls. NCCL's lines often come after a launcher's banner
// and a framework's own output, so the window is wider than a header's; one full NCCL header
// (`host:pid:tid [dev] NCCL INFO`) decides, or a few headerless ones (a log whose headers a poster
// cut off). A lone "NCCL version x" in someone else's message does not.
import { findHeaders } from '../parsers/ncclLogPrefix';

/** How many lines from the top are looked at. */
export const DETECT_WITHIN_LINES = 2000;
/** Lines longer than this are looked at up to here (NCCL formats into a 1 KiB buffer). */
const LINE_PREFIX_CHARS = 4096;
const BARE_LINES_NEEDED = 3;

export function ncclLogNearTop(lines: readonly string[]): boolean {
  let bare = 0;
  for (const line of lines.slice(0, DETECT_WITHIN_LINES)) {
    const headers = findHeaders(line.length > LINE_PREFIX_CHARS ? line.slice(0, LINE_PREFIX_CHARS) : line);
    if (headers.some((h) => h.host !== null)) return true;
    if (headers.length > 0 && ++bare >= BARE_LINES_NEEDED) return true;
  }
  return false;
}
