// Whether a text is an NCCL log, from its first lines only, so an editor can decide on every opened
// file at the cost of a few thousand indexOf calls. NCCL's lines often come after a launcher's banner
// and a framework's own output, so the window is wider than a header's; one full NCCL header
// (`host:pid:tid [dev] NCCL INFO`) decides, or a few headerless ones (a log whose headers a poster
// cut off). A lone "NCCL version x" in someone else's message does not.
import { findHeaders } from '../parsers/ncclLogPrefix';

/** How many lines from the top are looked at. */
export const DETECT_WITHIN_LINES = 2000;
/** Lines longer than this are looked at up to here (NCCL formats a line into a 1 KiB buffer). */
export const DETECT_LINE_PREFIX_CHARS = 4096;
/** And no more than this many characters in all: an 8 MB text of long lines costs what a short log does. */
export const DETECT_WITHIN_CHARS = 256 * 1024;
const BARE_LINES_NEEDED = 3;

export function ncclLogNearTop(lines: readonly string[]): boolean {
  let bare = 0;
  let room = DETECT_WITHIN_CHARS;
  for (const line of lines.slice(0, DETECT_WITHIN_LINES)) {
    if (room <= 0) return false;
    const looked = line.length > Math.min(room, DETECT_LINE_PREFIX_CHARS) ? line.slice(0, Math.min(room, DETECT_LINE_PREFIX_CHARS)) : line;
    room -= looked.length + 1;
    const headers = findHeaders(looked);
    if (headers.some((h) => h.host !== null)) return true;
    if (headers.length > 0 && ++bare >= BARE_LINES_NEEDED) return true;
  }
  return false;
}
