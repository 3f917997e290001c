/**
 * A value created on first use and kept. Concurrent first uses share one creation; a failed
 * creation is forgotten, so the next use tries again (the model file may have been fixed
 * meanwhile). Engines load their models this way: once per worker process, and a bad model
 * fails only the step that needs it, not the worker's start or the other steps.
 */
export interface Lazy<T> {
  (): Promise<T>;
  /** The value once created; undefined before, while it loads, and after a failed creation. */
  readonly current: T | undefined;
  /** Forgets the value (or the creation under way) and returns it, so that the caller can release it. */
  reset(): Promise<T | undefined>;
}

export function lazy<T>(create: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined;
  let current: T | undefined;
  const get = () => {
    if (!pending) {
      const creating: Promise<T> = create().then(
        (value) => {
          if (pending === creating) current = value;
          return value;
        },
        (error: unknown) => {
          if (pending === creating) pending = undefined;
          throw error;
        },
      );
      pending = creating;
    }
    return pending;
  };
  return Object.defineProperties(get, {
    current: { get: () => current },
    reset: {
      value: async () => {
        const was = pending;
        pending = undefined;
        current = undefined;
        return was?.catch(() => undefined);
      },
    },
  }) as Lazy<T>;
}
