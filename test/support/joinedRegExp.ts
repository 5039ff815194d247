// A long regular expression written as parts, one per line, so no line of code runs past 160 columns
// (test/unit/project/lineLength.test.ts): the parts' sources in a row, with the flags given.
export function joinedRegExp(parts: readonly RegExp[], flags = ''): RegExp {
  return new RegExp(parts.map((p) => p.source).join(''), flags);
}
