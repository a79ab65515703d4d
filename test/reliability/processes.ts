/**
 * Processes the reliability tests start and stop themselves: a redis-server of their own (so it
 * can be killed and restarted) and the bot as a child process (so it can be SIGKILLed or
 * SIGTERMed like a container). Every wait is bounded and every process is killed by its own pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { DEFAULT_KEY_PREFIX, RedisChangeStore } from '../../src/store/index.js';
import { FakeSlack } from '../e2e/fake-slack.js';
import { transpiledSources } from '../support/transpiled-sources.js';
import { KEY_ID, KEY_SECRET, SIGNING_SECRET, type Harness } from '../e2e/harness.js';
import { CloudSimulator } from '../../src/simulator/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A port nobody listens on right now (the OS picks it; a tiny race with other processes remains). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Resolves when the process has exited (at once if it already has). */
function exitOf(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Resolves when a line of the process's output matches, rejects on exit or after `timeoutMs`. */
function waitForLine(
  child: ChildProcess,
  output: string[],
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const seen = output.map((line) => pattern.exec(line)).find((m) => m !== null);
    if (seen) return resolve(seen);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    const onData = (chunk: Buffer) => {
      const match = pattern.exec(chunk.toString('utf8'));
      if (!match) return;
      cleanup();
      resolve(match);
    };
    const onExit = () => {
      cleanup();
      reject(new Error(`process exited before printing ${pattern}; output:\n${output.join('')}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; output:\n${output.join('')}`));
    }, timeoutMs);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

function collect(child: ChildProcess): string[] {
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  return output;
}

// ---------------------------------------------------------------------------------------------
// redis-server

export interface RedisServerOptions {
  /** Append-only file with fsync on every write, kept in this directory across restarts. */
  persistDir?: string;
}

export interface RedisServer {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: no chance to save anything) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port (and directory). */
  restart(): Promise<void>;
  /** A plain client for checks; closed by stop(). */
  client(): Redis;
  stop(): Promise<void>;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--daemonize',
    'no',
    '--protected-mode',
    'no',
  ];
  if (options.persistDir) args.push('--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.persistDir);
  else args.push('--appendonly', 'no');
  let child: ChildProcess | undefined;
  const clients: Redis[] = [];
  const launch = async () => {
    const spawned = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = spawned;
    const output = collect(spawned);
    await waitForLine(spawned, output, /Ready to accept connections/, 10_000);
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = exitOf(running);
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: launch,
    client() {
      const redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: false });
      redis.on('error', () => undefined);
      clients.push(redis);
      return redis;
    },
    async stop() {
      for (const redis of clients) redis.disconnect();
      await kill();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The bot as a child process: `node src/main.js` of the transpiled sources (as production runs
// dist/main.js), configured only by environment

export interface ChildBot {
  pid: number;
  port: number;
  /** POST /slack/events of the child. */
  url: string;
  output: string[];
  exited: Promise<Exit>;
  /** Resolves when the bot has printed a line matching `pattern` (already or later). */
  printed(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL if still running; for cleanup. */
  kill(): Promise<void>;
}

export async function startChildBot(deps: {
  simulator: CloudSimulator;
  slack: FakeSlack;
  redisUrl: string;
  env?: Record<string, string>;
}): Promise<ChildBot> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'test',
    SLACK_BOT_TOKEN: 'xoxb-test-token-never-logged',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_APP_TOKEN: '',
    SLACK_API_URL: deps.slack.apiUrl,
    PORT: '0',
    CLICKHOUSE_API_URL: deps.simulator.url,
    CLICKHOUSE_KEY_ID: KEY_ID,
    CLICKHOUSE_KEY_SECRET: KEY_SECRET,
    CLICKHOUSE_ORG_ID: DEMO_ORG_ID,
    REDIS_URL: deps.redisUrl,
    LOG_LEVEL: 'info',
    ...deps.env,
  };
  const sources = await transpiledSources();
  const child = spawn(process.execPath, [join(sources, 'src/main.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  const exited = exitOf(child);
  const pid = child.pid;
  if (pid === undefined) throw new Error('the bot process did not start');
  try {
    const listening = await waitForLine(child, output, /HTTP on port (\d+)/, 20_000);
    const port = Number(listening[1]);
    return {
      pid,
      port,
      url: `http://127.0.0.1:${port}/slack/events`,
      output,
      exited,
      printed: (pattern, timeoutMs = 10_000) => waitForLine(child, output, pattern, timeoutMs),
      signal: (signal) => void child.kill(signal),
      async kill() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// A test file's backends

/**
 * What the tests of a file share with the bots they start: a redis-server of its own, and for each
 * test a fresh simulator, Slack stand-in and change store on that Redis (the default key prefix, as
 * a child bot's REDIS_URL gives it). The children and replicas a test starts are stopped after it.
 */
export class ProcessBackends {
  // Set by the hooks useProcessBackends registers, before any test reads them.
  redis!: RedisServer;
  simulator!: CloudSimulator;
  slack!: FakeSlack;
  store!: RedisChangeStore;
  readonly children: ChildBot[] = [];
  readonly replicas: Harness[] = [];
}

export function useProcessBackends(): ProcessBackends {
  const backends = new ProcessBackends();
  beforeAll(async () => {
    backends.redis = await startRedisServer();
  });
  afterAll(async () => {
    await backends.redis.stop();
  });
  beforeEach(async () => {
    await backends.redis.client().flushall();
    backends.simulator = await CloudSimulator.start({
      keyId: KEY_ID,
      keySecret: KEY_SECRET,
      orgId: DEMO_ORG_ID,
      services: demoServices(),
    });
    backends.slack = await FakeSlack.start();
    backends.store = new RedisChangeStore(backends.redis.url, { keyPrefix: DEFAULT_KEY_PREFIX });
  });
  afterEach(async () => {
    for (const child of backends.children.splice(0)) await child.kill();
    while (backends.replicas.length > 0) await backends.replicas.pop()?.stop();
    await backends.store.close();
    await backends.simulator.close();
    await backends.slack.close();
  });
  return backends;
}
