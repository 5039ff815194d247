// Ctrl-C during a long run: the first one aborts the work (its remote commands are stopped and what
// was collected is printed); a second one ends the process as usual.
export async function whileInterruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onInt = () => controller.abort();
  process.once('SIGINT', onInt);
  try {
    return await work(controller.signal);
  } finally {
    process.removeListener('SIGINT', onInt);
  }
}
