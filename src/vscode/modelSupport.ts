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

/**
 * One run per key at a time: a second request for a key already running (Diagnose clicked while Open
 * Demo Host's own diagnosis starts) waits for that run instead of starting another beside it. A waiter
 * whose signal aborts stops waiting (undefined); the run itself goes on for whoever started it.
 */
export class SharedRuns<T> {
  private readonly running = new Map<string, Promise<T>>();

  run(key: string, start: () => Promise<T>, signal: AbortSignal): Promise<T | undefined> {
    const current = this.running.get(key);
    if (current) return waitUnlessAborted(current, signal);
    const started = start().finally(() => this.running.delete(key));
    this.running.set(key, started);
    return started;
  }

  has(key: string): boolean {
    return this.running.has(key);
  }
}

function waitUnlessAborted<T>(run: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    run.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
