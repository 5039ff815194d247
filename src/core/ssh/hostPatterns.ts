// OpenSSH's host pattern matching (match.c): `*` and `?` wildcards, comma lists, `!` negation.
// Shared by ssh_config `Host` lines and known_hosts host fields.

/** True when `text` matches one glob with `*` (any run) and `?` (one character), case-insensitively. */
export function globMatch(text: string, pattern: string): boolean {
  const t = text.toLowerCase();
  const p = pattern.toLowerCase();
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
export function matchPatternList(name: string, patterns: readonly string[]): boolean {
  let matched = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    if (!globMatch(name, pattern)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}
