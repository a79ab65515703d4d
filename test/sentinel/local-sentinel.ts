/**
 * A throwaway Redis Sentinel setup on loopback: a master, one replica and three Sentinels
 * (quorum 1, down after 1 s), all child processes with free ports and a temporary directory, no
 * persistence. The data nodes require a password, so connections prove they take it from the URL.
 * stop() kills every process it started (by pid) and removes the directory; a process exiting
 * without stop() still kills them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { connectRedis, type SentinelTarget } from '../../src/store/index.js';
import { onFreePort, until } from '../support/local-processes.js';

export { until };

export const MASTER_NAME = 'mymaster';
/** Characters that must be percent-encoded in a URL, to prove the password is decoded. */
export const PASSWORD = 's3cret/p@ss:w%rd';

export interface LocalSentinel {
  /** The data nodes: the first starts as the master, the second as its replica. */
  dataPorts: [number, number];
  sentinelPorts: number[];
  /** REDIS_SENTINELS for this setup. */
  sentinelsSetting: string;
  target: SentinelTarget;
  /** REDIS_URL as the bot takes it here: password and database; the host is a placeholder the bot ignores. */
  url(db?: number): string;
  /** A new connection opened as the bot opens it (REDIS_URL + REDIS_SENTINELS); the caller quits it. */
  connect(db?: number): Redis;
  /** The master's port as every Sentinel reports it, or undefined while they disagree. */
  masterPort(): Promise<number | undefined>;
  /** Polls every Sentinel until all of them name `port` as the master; the milliseconds it took. */
  waitForMaster(port: number, timeoutMs: number): Promise<number>;
  /** An admin connection to a data node (authenticated, db 0), or to a Sentinel. */
  node(port: number): Redis;
  sentinel(index: number): Redis;
  /** SIGKILL a data node and wait until it is gone. */
  kill(port: number): Promise<void>;
  /** Start a data node (again) on its port, as a replica of `replicaOf`; waits until it has synced. */
  startReplica(port: number, replicaOf: number): Promise<void>;
  stop(): Promise<void>;
}

/** Why Sentinel cannot be started here, or undefined when `redis-server --sentinel` is available. */
export function sentinelUnsupported(): string | undefined {
  const version = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0)
    return `redis-server is not installed (${version.error?.message ?? version.stderr})`;
  const major = Number(/v=(\d+)\./.exec(version.stdout)?.[1] ?? 0);
  // SENTINEL REPLICAS and the replica-* spellings arrived in Redis 5.
  if (major < 5) return `redis-server ${version.stdout.trim()} is older than 5`;
  const help = spawnSync('redis-server', ['--help'], { encoding: 'utf8' });
  if (!`${help.stdout}${help.stderr}`.includes('--sentinel')) return 'this redis-server has no --sentinel mode';
  return undefined;
}

/** SENTINEL replies come as flat [field, value, ...] lists. */
export function fields(reply: unknown): Record<string, string> {
  const list = Array.isArray(reply) ? reply.map(String) : [];
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) record[list[i] ?? ''] = list[i + 1] ?? '';
  return record;
}

export async function startLocalSentinel(sentinelCount = 3): Promise<LocalSentinel> {
  const dir = await mkdtemp(join(tmpdir(), 'chbot-sentinel-'));
  const children = new Map<string, ChildProcess>();
  const logs = new Map<string, string>();
  const admins = new Map<string, Redis>();
  const killAll = () => {
    for (const child of children.values())
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAll);

  const stop = async () => {
    process.off('exit', killAll);
    for (const admin of admins.values()) admin.disconnect();
    await Promise.all([...children.values()].map((child) => exited(child, 'SIGTERM')));
    await rm(dir, { recursive: true, force: true });
  };

  const launch = (label: string, args: string[]) => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    logs.set(label, '');
    const keep = (chunk: Buffer) => logs.set(label, `${logs.get(label) ?? ''}${chunk.toString()}`.slice(-4000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    children.set(label, child);
    return child;
  };

  const admin = (label: string, port: number, password?: string) => {
    let connection = admins.get(label);
    if (!connection) {
      connection = new Redis({
        host: '127.0.0.1',
        port,
        ...(password ? { password } : {}),
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => 50,
      });
      connection.on('error', () => undefined);
      admins.set(label, connection);
    }
    return connection;
  };

  const answering = (label: string, connection: Redis) =>
    until(`${label} to answer (log: ${logs.get(label)})`, 10_000, async () => {
      const child = children.get(label);
      if (child && child.exitCode !== null)
        throw new Error(`${label} exited with ${child.exitCode}: ${logs.get(label)}`);
      if (connection.status === 'wait') await connection.connect();
      return (await connection.ping()) === 'PONG' ? true : undefined;
    });

  const dataNode = async (port: number, replicaOf?: number) => {
    const label = `redis-${port}`;
    // A restarted node needs a fresh admin connection (the old one may be mid-retry).
    admins.get(label)?.disconnect();
    admins.delete(label);
    launch(label, [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--dbfilename',
      `dump-${port}.rdb`,
      '--requirepass',
      PASSWORD,
      '--masterauth',
      PASSWORD,
      '--daemonize',
      'no',
      // Replicas sync at once instead of after Redis 7's 5 s wait for more replicas.
      '--repl-diskless-sync-delay',
      '0',
      ...(replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(replicaOf)]),
    ]);
    const connection = admin(label, port, PASSWORD);
    await answering(label, connection);
    if (replicaOf !== undefined) {
      await until(`${label} to sync with its master on ${replicaOf}`, 10_000, async () =>
        (await connection.info('replication')).includes('master_link_status:up') ? true : undefined,
      );
    }
  };

  try {
    const taken = new Set<number>();
    const masterPort = await onFreePort(taken, (port) => dataNode(port));
    const replicaPort = await onFreePort(taken, (port) => dataNode(port, masterPort));
    const dataPorts: [number, number] = [masterPort, replicaPort];

    const startSentinel = async (port: number): Promise<void> => {
      const file = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 1`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 3000`,
          `sentinel auth-pass ${MASTER_NAME} ${PASSWORD}`,
          '',
        ].join('\n'),
      );
      const label = `sentinel-${port}`;
      launch(label, [file, '--sentinel']);
      await answering(label, admin(label, port));
    };
    const sentinelPorts = await Promise.all(
      Array.from({ length: sentinelCount }, () => onFreePort(taken, startSentinel)),
    );
    const sentinels = sentinelPorts.map((port) => admin(`sentinel-${port}`, port));
    // Ready when every Sentinel knows the replica (a failover candidate) and every other Sentinel
    // (a failover needs a majority of them to elect a leader); they meet through hello messages.
    await Promise.all(
      sentinels.map((sentinel, i) =>
        until(`Sentinel ${sentinelPorts[i]} to know the replica and the other Sentinels`, 15_000, async () => {
          const master = fields(await sentinel.call('SENTINEL', 'MASTER', MASTER_NAME));
          return master['num-slaves'] === '1' &&
            master['num-other-sentinels'] === String(sentinelCount - 1) &&
            master.flags === 'master'
            ? true
            : undefined;
        }),
      ),
    );

    const target: SentinelTarget = {
      sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
      name: MASTER_NAME,
    };
    const url = (db = 0) => `redis://:${encodeURIComponent(PASSWORD)}@ignored.invalid:6379/${db}`;
    const masterPortNow = async () => {
      const answers = await Promise.all(
        sentinels.map(async (sentinel) => {
          const reply = await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME);
          return Array.isArray(reply) ? Number(reply[1]) : undefined;
        }),
      );
      return answers.every((port) => port === answers[0]) ? answers[0] : undefined;
    };
    return {
      dataPorts,
      sentinelPorts,
      sentinelsSetting: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      target,
      url,
      connect: (db = 0) => connectRedis(url(db), { sentinel: target }),
      masterPort: masterPortNow,
      async waitForMaster(port, timeoutMs) {
        const started = Date.now();
        await until(`every Sentinel to name 127.0.0.1:${port} the master`, timeoutMs, async () =>
          (await masterPortNow()) === port ? true : undefined,
        );
        return Date.now() - started;
      },
      node: (port) => admin(`redis-${port}`, port, PASSWORD),
      sentinel: (index) => {
        const connection = sentinels[index];
        if (!connection) throw new Error(`no Sentinel ${index}`);
        return connection;
      },
      async kill(port) {
        const child = children.get(`redis-${port}`);
        if (child) await exited(child, 'SIGKILL');
      },
      startReplica: (port, replicaOf) => dataNode(port, replicaOf),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Signals a child and resolves once it has exited (SIGKILL after 3 s if it has not). */
function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
