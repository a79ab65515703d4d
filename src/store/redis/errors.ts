/**
 * ioredis reports an unreachable server in several ways; people only need to know that the bot's
 * store did not answer, so the Redis stores turn those failures into the store's own
 * StoreUnavailableError (ports/store-errors.ts) and nothing outside this folder reads ioredis's
 * messages.
 */
import { StoreUnavailableError } from '../../ports/store-errors.js';

export function isRedisUnavailable(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return /Connection is closed|ECONNREFUSED|ECONNRESET|Command timed out|Stream isn't writeable|offline queue|CLUSTERDOWN|ClusterAllFailedError/i.test(
    `${error.name} ${error.message}`,
  );
}

function asStoreError(error: unknown): Error {
  if (isRedisUnavailable(error)) return new StoreUnavailableError(error.message, { cause: error });
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * The store itself, with every method's "Redis is not answering" failure rejected as a
 * StoreUnavailableError. Other failures (bad data, bugs) pass through unchanged.
 */
export function reportUnavailableAsStoreErrors<T extends object>(store: T): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, target, args);
        return result instanceof Promise
          ? result.catch((error: unknown) => Promise.reject(asStoreError(error)))
          : result;
      };
    },
  });
}
