/**
 * .ci/run pinged the configured REDIS_URL but always started Redis on 127.0.0.1:6379 (issue 22):
 * a CI with REDIS_URL on another port got a Redis nobody used and tests with none. .ci/redis
 * (which .ci/run calls) starts it where the URL says. Our own server: free port, own directory,
 * stopped by its pid.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../reliability/processes.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../.ci/redis', import.meta.url));
const dirs: string[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) {
    const pid = Number((await readFile(join(dir, 'redis.pid'), 'utf8').catch(() => '')).trim());
    if (pid > 0) {
      process.kill(pid, 'SIGTERM');
      await waitUntilGone(pid);
    }
    await rm(dir, { recursive: true, force: true });
  }
});

async function waitUntilGone(pid: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server ${pid} did not stop`);
}

async function ping(port: number, password?: string): Promise<string> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableReadyCheck: false,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.ping();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    client.disconnect();
  }
}

describe('.ci/redis', () => {
  it("starts Redis on REDIS_URL's port and password, not on 6379", async () => {
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'ci-redis-test-'));
    dirs.push(dir);
    const { stdout } = await run(SCRIPT, [], {
      env: { ...process.env, REDIS_URL: `redis://:ci-pass@127.0.0.1:${port}/0`, REDIS_DIR: dir },
    });
    expect(stdout).toContain(`starting redis-server on 127.0.0.1:${port}`);
    expect(stdout).not.toContain('ci-pass');
    expect(await ping(port, 'ci-pass')).toBe('PONG');
    expect(await ping(port)).toMatch(/NOAUTH/);
  });

  it('refuses with a sentence when REDIS_URL names another machine that does not answer', async () => {
    const error = await run(SCRIPT, [], {
      env: { ...process.env, REDIS_URL: 'redis://192.0.2.1:6390' },
      timeout: 15_000,
    }).catch((e: unknown) => e);
    expect(String((error as { stderr?: string }).stderr)).toContain('it is not this machine');
  });
});
