// The nodes whose stream has ended, parsed one at a time between reads of the login node's output:
// each parse starts from setImmediate, so the event loop reads what pdsh/srun/clush printed in
// between and the tool never waits for gdr-doctor while there is a CPU for both. Only when more than
// `limit` ended nodes wait (parsing slower than the tool prints) does reading pause, so the waiting
// raw streams stay bounded.

export class ParseQueue {
  private readonly waiting: (() => Promise<void>)[] = [];
  private running = false;
  private drained?: { promise: Promise<void>; resolve: () => void };

  constructor(private readonly limit: number) {}

  /** Runs `task` in its turn; the promise settles with its result. */
  add<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => task().then(resolve, reject));
      this.kick();
    });
  }

  /** A promise while more than `limit` tasks wait: settles once no more than half of `limit` wait. */
  backlog(): Promise<void> | undefined {
    if (this.waiting.length <= this.limit) return undefined;
    if (!this.drained) {
      let resolve = () => undefined as void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.drained = { promise, resolve };
    }
    return this.drained.promise;
  }

  private kick(): void {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    setImmediate(() => {
      const task = this.waiting.shift();
      if (this.drained && this.waiting.length <= this.limit / 2) {
        this.drained.resolve();
        this.drained = undefined;
      }
      void task?.().finally(() => {
        this.running = false;
        this.kick();
      });
    });
  }
}
