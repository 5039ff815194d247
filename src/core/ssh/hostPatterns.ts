// OpenSSH's host pattern matching (match.c): `*` and `?` wildcards, comma lists, `!` negation.
// Shared by ssh_config `Host` lines and known_hosts host fields.

/**
 * True when `text` matches one glob with `*` (any run) and `?` (one character). OpenSSH compares
 * ssh_config `Host` patterns case-sensitively but known_hosts and `Match host` ones without case.
 */
export function globMatch(text: string, pattern: string, ignoreCase: boolean): boolean {
  const t = ignoreCase ? text.toLowerCase() : text;
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  // Iterative matcher with one backtrack point: linear in practice, never exponential.
  let ti = 0;
  let pi = 0;
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === t[ti])) {
      ti++;
      pi++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      mark = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

/**
 * Matches a name against a pattern list, OpenSSH style: a matching negated pattern wins and
 * rejects outright; otherwise any positive match accepts.
 */
export function matchPatternList(name: string, patterns: readonly string[], ignoreCase: boolean): boolean {
  let matched = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    if (!globMatch(name, pattern, ignoreCase)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}
