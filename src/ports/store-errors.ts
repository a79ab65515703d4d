/**
 * A store that cannot be reached (Redis down, failing over, timing out). The adapter maps its
 * own failures to this (store/redis/errors.ts), so callers can tell people "the store is not
 * answering" without knowing what the store is.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailableError {
  return error instanceof StoreUnavailableError;
}
