/** Shared by the tests that start their own Redis processes (Cluster, Sentinel): ports and waiting. */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free port not yet handed out from `taken` (random, so parallel test files rarely collide). */
export async function freePort(taken: Set<number>, alsoFree: (port: number) => number[] = () => []): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    const needed = [port, ...alsoFree(port)];
    if (needed.some((p) => taken.has(p))) continue;
    if ((await Promise.all(needed.map(portFree))).every(Boolean)) {
      for (const p of needed) taken.add(p);
      return port;
    }
  }
  throw new Error('no free port');
}

/** Polls `probe` until it returns a value, within a bound; the last error explains a timeout. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error instanceof Error ? error : new Error(String(error));
    }
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/**
 * Starts something on a port found free, and on another if that one was taken meanwhile (the port
 * is found free, then bound by the server a moment later: a bot or server of a parallel test file
 * may bind it in between, as once in CI). Resolves with the port it started on.
 */
export async function onFreePort(taken: Set<number>, start: (port: number) => Promise<void>): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort(taken);
    try {
      await start(port);
      return port;
    } catch (error) {
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}
