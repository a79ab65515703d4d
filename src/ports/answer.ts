/**
 * How an in-process implementation of a port (the memory stores, the simulator's directory, test
 * fakes) answers: the work is done at once, synchronously, and the result comes back as a promise
 * like the real adapter's; an error thrown by the work is a rejection, never a synchronous throw.
 */
export function answer<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
