// The Prometheus text exposition format (version 0.0.4), as node_exporter's textfile collector and
// `promtool check metrics` read it (prometheus/common expfmt): one `# HELP` and `# TYPE` per family,
// then its samples, each series once. No sample timestamps: the textfile collector refuses files
// that carry them. Label values come from hosts (device names, GPU UUIDs) and users (host names):
// escaped as the format says (`\\`, `\"`, `\n`), other control characters replaced (expfmt has no
// escape for them, and a terminal must not get them raw), and cut to a bound.

export type Labels = Readonly<Record<string, string>>;

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge';
  readonly samples: readonly { readonly labels: Labels; readonly value: number }[];
}

/** Longest label value written; beyond it the value is cut and ends with `…`. */
export const MAX_LABEL_VALUE = 256;

const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;

export function escapeLabelValue(value: string): string {
  const bounded = value.length > MAX_LABEL_VALUE ? `${value.slice(0, MAX_LABEL_VALUE - 1)}…` : value;
  return bounded.replace(CONTROL, '\ufffd').replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text escapes only backslash and newline. */
function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

function seriesText(name: string, labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
}

/**
 * The families as exposition text. A family without samples is left out (a HELP with nothing under it
 * says nothing); a series repeated within a family keeps its first value.
 */
export function formatExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  const seenFamilies = new Set<string>();
  for (const f of families) {
    if (f.samples.length === 0 || seenFamilies.has(f.name)) continue;
    seenFamilies.add(f.name);
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    const seen = new Set<string>();
    for (const s of f.samples) {
      // The same labels in another order are the same series; so are two values the same once cut.
      const key = JSON.stringify(
        Object.entries(s.labels)
          .map(([k, v]) => [k, escapeLabelValue(v)])
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
      if (seen.has(key)) continue;
      seen.add(key);
      lines.push(`${seriesText(f.name, s.labels)} ${formatValue(s.value)}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
