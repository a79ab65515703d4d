/**
 * ioredis reports an unreachable server in several ways; people only need to know that the bot's
 * store did not answer, so the bot can tell them so instead of a generic failure.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  return /Connection is closed|ECONNREFUSED|ECONNRESET|Command timed out|Stream isn't writeable|offline queue|CLUSTERDOWN|ClusterAllFailedError/i.test(`${error.name} ${error.message}`);
}
