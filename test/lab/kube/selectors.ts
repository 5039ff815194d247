// Label and field selectors as the API server reads them (k8s.io/apimachinery labels.Parse, fields):
// `a=b`, `a==b`, `a!=b`, `a`, `!a`, `a in (x,y)`, `a notin (x)`; fields `path=value` / `path!=value`.
import type { Json } from './objects';

type Test = (labels: Record<string, string>) => boolean;

export function labelSelector(text: string | null): Test {
  if (!text) return () => true;
  const tests = splitTerms(text).map(term);
  return (labels) => tests.every((t) => t(labels));
}

function splitTerms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function term(t: string): Test {
  let m = /^(\S+?)\s+(in|notin)\s+\((.*)\)$/.exec(t);
  if (m) {
    const [, key, op, list] = m;
    const values = list.split(',').map((v) => v.trim());
    return op === 'in' ? (l) => key in l && values.includes(l[key]) : (l) => !(key in l && values.includes(l[key]));
  }
  m = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(t);
  if (m) {
    const [, key, op, value] = m;
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  if (t.startsWith('!')) return (l) => !(t.slice(1) in l);
  return (l) => t in l;
}

export function fieldSelector(text: string | null): (o: Json) => boolean {
  if (!text) return () => true;
  const tests = text.split(',').map((t) => {
    const m = /^([^!=]+?)(==|=|!=)(.*)$/.exec(t);
    if (!m) throw new Error(`bad field selector ${t}`);
    const [, field, op, value] = m;
    const read = (o: Json) => String(field.split('.').reduce<unknown>((v, k) => (v as Json | undefined)?.[k], o) ?? '');
    return op === '!=' ? (o: Json) => read(o) !== value : (o: Json) => read(o) === value;
  });
  return (o) => tests.every((t) => t(o));
}
