/**
 * Runs tasks one at a time, in the order they were given: a native engine (sherpa-onnx's
 * diarizer, a llama.cpp context) holds one model instance that must not run two calls at once.
 * A failed task does not stop the ones after it.
 */
export interface SerialQueue {
  run<T>(task: () => T | Promise<T>): Promise<T>;
  /** Resolves once every task given so far has settled. */
  idle(): Promise<void>;
}

export function serialQueue(): SerialQueue {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run(task) {
      const result = tail.then(task);
      tail = result.catch(() => undefined);
      return result;
    },
    async idle() {
      await tail;
    },
  };
}
