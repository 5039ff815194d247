// Arrow-key movement between the graph's nodes as they are drawn: the nearest node in the pressed
// direction, favouring one straight ahead over one off to the side. Pure.
import type { Rect } from './graphSizes';

export type Direction = 'up' | 'down' | 'left' | 'right';

export interface KeyRect extends Rect {
  readonly id: string;
}

export function nextInDirection(rects: readonly KeyRect[], from: string, direction: Direction): string | null {
  const start = rects.find((r) => r.id === from);
  if (!start) return rects[0]?.id ?? null;
  const [sx, sy] = [start.x + start.w / 2, start.y + start.h / 2];
  let best: { id: string; cost: number } | null = null;
  for (const r of rects) {
    if (r.id === from) continue;
    const [dx, dy] = [r.x + r.w / 2 - sx, r.y + r.h / 2 - sy];
    const ahead = direction === 'up' ? -dy : direction === 'down' ? dy : direction === 'left' ? -dx : dx;
    const aside = direction === 'up' || direction === 'down' ? Math.abs(dx) : Math.abs(dy);
    if (ahead <= 1) continue;
    const cost = ahead + 3 * aside;
    if (!best || cost < best.cost) best = { id: r.id, cost };
  }
  return best?.id ?? null;
}
