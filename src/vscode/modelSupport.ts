// What the host and fleet models share: the listeners the tree and the raw-output documents register
// to redraw, and lists read from sources that may throw (an unreadable ssh_config or setting). No
// VS Code import, like the models.

export class ChangeListeners {
  private readonly listeners = new Set<() => void>();

  add(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Calls every listener; one that stops listening meanwhile does not disturb the others. */
  fire(): void {
    for (const l of [...this.listeners]) l();
  }
}

/** A list from a source that may throw: an unreadable source shows nothing instead of emptying the view. */
export function safeList<T>(source: () => readonly T[]): readonly T[] {
  try {
    return source();
  } catch {
    return [];
  }
}
