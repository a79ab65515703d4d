/**
 * A throwaway Redis Cluster on loopback: three masters, no replicas, in a temporary directory,
 * started as child processes and slotted by `redis-cli --cluster create`. Everything is torn down
 * (processes killed by pid, directory removed) by stop().
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { connectRedis, type RedisConnection } from '../../src/store/index.js';
import { freePort, until } from '../support/local-processes.js';

export interface LocalCluster {
  ports: number[];
  /** redis://127.0.0.1:P of one node, as REDIS_URL would name it. */
  seedUrl(index?: number): string;
  /** A new Cluster connection, opened as the bot opens it (REDIS_CLUSTER=true), seeded from one node; the caller quits it. */
  connect(seedIndex?: number): RedisConnection;
  /** A plain connection to one node, for CLUSTER commands. */
  node(index: number): Redis;
  stop(): Promise<void>;
}

/** Why the cluster cannot be started here, or undefined when redis-server and redis-cli can. */
export function clusterUnsupported(): string | undefined {
  const server = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (server.error || server.status !== 0)
    return `redis-server is not installed (${server.error?.message ?? server.stderr})`;
  const cli = spawnSync('redis-cli', ['--version'], { encoding: 'utf8' });
  if (cli.error || cli.status !== 0) return `redis-cli is not installed (${cli.error?.message ?? cli.stderr})`;
  const major = Number(/v=(\d+)\./.exec(server.stdout)?.[1] ?? 0);
  // `redis-cli --cluster create` arrived in Redis 5.
  if (major < 5)
    return `redis-server ${server.stdout.trim()} is older than 5 and cannot be set up with redis-cli --cluster`;
  return undefined;
}

function run(command: string, args: string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export async function startLocalCluster(size = 3): Promise<LocalCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'chbot-cluster-'));
  const children: ChildProcess[] = [];
  const admins: Redis[] = [];
  const stop = async () => {
    for (const admin of admins) admin.disconnect();
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set<number>();
    const ports: number[] = [];
    for (let i = 0; i < size; i++) ports.push(await freePort(taken, (port) => [port + 10_000])); // and its cluster bus port
    const logs = new Map<number, string>();
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          '5000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--daemonize',
          'no',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      logs.set(port, '');
      const keep = (chunk: Buffer) => logs.set(port, `${logs.get(port) ?? ''}${chunk.toString()}`.slice(-4000));
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      children.push(child);
    }
    const nodes = ports.map((port) => {
      const admin = new Redis({
        host: '127.0.0.1',
        port,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => 50,
      });
      admin.on('error', () => undefined);
      admins.push(admin);
      return admin;
    });
    await Promise.all(
      nodes.map((node, i) =>
        until(`redis-server on port ${ports[i]} (log: ${logs.get(ports[i] ?? 0)})`, 10_000, async () => {
          const exited = children[i]?.exitCode;
          if (exited !== null && exited !== undefined)
            throw new Error(`redis-server exited with ${exited}: ${logs.get(ports[i] ?? 0)}`);
          if (node.status === 'wait') await node.connect();
          return (await node.ping()) === 'PONG' ? true : undefined;
        }),
      ),
    );
    const created = await run(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      30_000,
    );
    if (created.code !== 0) throw new Error(`redis-cli --cluster create failed (${created.code}):\n${created.output}`);
    // Every node must see every slot served before a client can rely on the slot map.
    await Promise.all(
      nodes.map((node) =>
        until('cluster_state:ok on every node', 15_000, async () => {
          const info = String(await node.cluster('INFO'));
          return info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${size}`) ? true : undefined;
        }),
      ),
    );
    return {
      ports,
      seedUrl: (index = 0) => `redis://127.0.0.1:${ports[index] ?? ports[0]}`,
      connect: (seedIndex = 0) => connectRedis(`redis://127.0.0.1:${ports[seedIndex] ?? ports[0]}`, { cluster: true }),
      node: (index) => {
        const node = nodes[index];
        if (!node) throw new Error(`no node ${index}`);
        return node;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
