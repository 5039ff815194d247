// A finding as a row label: the state in the first columns a sidebar at its default width shows (about 25
// beside the indent and icon), the long title left to the tooltip and the details. GitLens and the
// Kubernetes extension label their rows the same way: a few words, ids and addresses in the hover.
import type { Finding } from './finding';
import { displayWidth } from '../columns';
import { findingWords } from './hostVerdict';

/** Columns a label may take before the sidebar cuts it; CJK characters take two. */
export const LABEL_COLUMNS = 25;

/** The title when it fits, else the finding's short words (hostVerdict.ts), else the title cut. */
export function findingLabel(f: Pick<Finding, 'id' | 'title'>): string {
  if (displayWidth(f.title) <= LABEL_COLUMNS) return f.title;
  const words = findingWords(f.id, f.title);
  return displayWidth(words) <= LABEL_COLUMNS ? words : cutToWidth(words, LABEL_COLUMNS);
}

function cutToWidth(text: string, columns: number): string {
  let out = '';
  for (const ch of text) {
    if (displayWidth(out + ch) > columns - 1) break;
    out += ch;
  }
  return `${out.trimEnd()}…`;
}
