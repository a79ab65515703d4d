/**
 * A Redis server of the benchmark's own (redis-server on a free port, data in a temporary
 * directory, no persistence), so that its command counters (INFO stats, INFO commandstats) count
 * the bot's commands only: not other programs sharing REDIS_URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

export interface BenchRedis {
  url: string;
  /** Commands the server has processed so far, not counting this call's own INFO. */
  commandsProcessed(): Promise<number>;
  /** Calls by command name (evalsha, hgetall...) so far, not counting INFO. */
  commandStats(): Promise<Map<string, number>>;
  close(): Promise<void>;
}

export async function startBenchRedis(port: number): Promise<BenchRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const server: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  server.once('error', (error: NodeJS.ErrnoException) => {
    process.stderr.write(
      `The benchmark starts a Redis server of its own and could not run redis-server (${error.code ?? error.message}): install Redis (redis-server on PATH) and run it again.\n`,
    );
    process.exit(1);
  });
  const url = `redis://127.0.0.1:${port}`;
  const client = await connectWhenUp(url);
  const info = async (section: string) => String(await client.info(section));
  return {
    url,
    async commandsProcessed() {
      const total = Number(/total_commands_processed:(\d+)/.exec(await info('stats'))?.[1] ?? NaN);
      return total - infoCalls(await info('commandstats'));
    },
    async commandStats() {
      const stats = new Map<string, number>();
      for (const [, name = '', calls = '0'] of (await info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
        if (name !== 'info' && name !== 'ping') stats.set(name, Number(calls));
      return stats;
    },
    async close() {
      client.disconnect();
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The INFO (and PING) commands of this module are the server's too: they are taken out of its total. */
function infoCalls(commandStats: string): number {
  const calls = (name: string) => Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(commandStats)?.[1] ?? 0);
  // The INFO that read the stats was counted after them; the one reading commandstats, before it answered.
  return calls('info') + calls('ping');
}

async function connectWhenUp(url: string): Promise<Redis> {
  for (let attempt = 0; ; attempt++) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return client;
    } catch (error) {
      client.disconnect();
      if (attempt > 100) throw error;
      await sleep(50);
    }
  }
}
