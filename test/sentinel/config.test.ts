/**
 * REDIS_SENTINELS and REDIS_SENTINEL_NAME: off unless set, checked with every other setting, never
 * with REDIS_CLUSTER; and the connection connectRedis builds from them (options only, no server).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { connectRedis } from '../../src/store/index.js';

const minimal = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'secret' };
const SENTINELS = '10.0.0.5:26379, 10.0.0.6:26380,[fd00::7]:26379';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('REDIS_SENTINELS and REDIS_SENTINEL_NAME', () => {
  it('are off unless set (an empty line too)', () => {
    expect(loadConfig(minimal).redisSentinel).toBeUndefined();
    expect(
      loadConfig({ ...minimal, REDIS_URL: 'redis://10.0.0.5:6379', REDIS_SENTINELS: '', REDIS_SENTINEL_NAME: 'cache' })
        .redisSentinel,
    ).toBeUndefined();
    expect(loadConfig({ ...minimal, REDIS_SENTINELS: ' , ' }).redisSentinel).toBeUndefined();
  });

  it('read a comma list of host:port (IPv6 in brackets) and default the group name to mymaster', () => {
    const config = loadConfig({ ...minimal, REDIS_SENTINELS: SENTINELS });
    expect(config.redisSentinel).toStrictEqual({
      sentinels: [
        { host: '10.0.0.5', port: 26379 },
        { host: '10.0.0.6', port: 26380 },
        { host: 'fd00::7', port: 26379 },
      ],
      name: 'mymaster',
    });
    // REDIS_URL may be left out: the Sentinels name the master.
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisCluster).toBe(false);
    expect(
      loadConfig({ ...minimal, REDIS_SENTINELS: 'sentinel-0.redis.svc:26379', REDIS_SENTINEL_NAME: 'chbot-cache' })
        .redisSentinel,
    ).toStrictEqual({
      sentinels: [{ host: 'sentinel-0.redis.svc', port: 26379 }],
      name: 'chbot-cache',
    });
  });

  it('keep REDIS_URL for the password and database', () => {
    const config = loadConfig({
      ...minimal,
      REDIS_URL: 'redis://:pw@ignored:6379/2',
      REDIS_SENTINELS: '10.0.0.5:26379',
    });
    expect(config.redisUrl).toBe('redis://:pw@ignored:6379/2');
    expect(config.redisSentinel?.sentinels).toHaveLength(1);
  });

  it('name every bad entry, with every other problem at once', () => {
    const found = problems({
      SLACK_BOT_TOKEN: 'xoxb-1',
      REDIS_SENTINELS: '10.0.0.5:26379,10.0.0.6,host:0,host:70000,fd00::7:26379, a b:1',
      REDIS_SENTINEL_NAME: 'my master',
      PORT: 'eighty',
    });
    expect(found).toHaveLength(4);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^SLACK_SIGNING_SECRET is required/),
        expect.stringMatching(/^PORT /),
        'REDIS_SENTINELS lists nodes as host:port, comma separated (e.g. 10.0.0.5:26379,10.0.0.6:26379,10.0.0.7:26379), not "10.0.0.6", "host:0", "host:70000", "fd00::7:26379", "a b:1"',
        expect.stringMatching(/^REDIS_SENTINEL_NAME must be the master group name .*no spaces/),
      ]),
    );
  });

  it('cannot be combined with REDIS_CLUSTER=true, and say so in one sentence', () => {
    const envs: Array<Record<string, string>> = [
      { REDIS_URL: 'redis://10.0.0.5:6379', REDIS_SENTINELS: '10.0.0.5:26379', REDIS_CLUSTER: 'true' },
      // Without REDIS_URL only the conflict is reported, not the Cluster's need for a seed node.
      { REDIS_SENTINELS: '10.0.0.5:26379', REDIS_CLUSTER: 'yes' },
    ];
    for (const env of envs) {
      expect(problems({ ...minimal, ...env })).toStrictEqual([
        'REDIS_SENTINELS and REDIS_CLUSTER=true cannot be used together: Sentinel watches one master and its replicas, a Redis Cluster fails over by itself; set REDIS_SENTINELS or REDIS_CLUSTER=true, not both',
      ]);
    }
    expect(
      loadConfig({ ...minimal, REDIS_SENTINELS: '10.0.0.5:26379', REDIS_CLUSTER: 'false' }).redisSentinel,
    ).toBeDefined();
  });

  it('refuse a REDIS_URL whose path is not a database number', () => {
    expect(problems({ ...minimal, REDIS_URL: 'redis://:pw@x/cache', REDIS_SENTINELS: '10.0.0.5:26379' })).toStrictEqual(
      [
        expect.stringMatching(
          /^REDIS_URL names database "cache": with REDIS_SENTINELS only its user, password and database number/,
        ),
      ],
    );
  });
});

describe('connectRedis through Sentinel', () => {
  /** The options ioredis was given, from a connection closed before it could connect anywhere. */
  function optionsOf(url: string | undefined) {
    const redis = connectRedis(url, { sentinel: { sentinels: [{ host: '127.0.0.1', port: 1 }], name: 'cache' } });
    redis.on('error', () => undefined);
    redis.disconnect();
    return redis.options;
  }

  it('asks the Sentinels for the master, failing fast like every other connection', () => {
    const options = optionsOf(undefined);
    expect(options).toMatchObject({
      sentinels: [{ host: '127.0.0.1', port: 1 }],
      name: 'cache',
      role: 'master',
      failoverDetector: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: 5_000,
      sentinelCommandTimeout: 2_000,
      db: 0,
    });
    expect(options.password).toBeFalsy();
    expect(options.tls).toBeUndefined();
  });

  it("takes the URL's user, decoded password, database and TLS, never its host", () => {
    const options = optionsOf(`rediss://bot:${encodeURIComponent('p@ss/w:rd')}@ignored.example:6380/4`);
    expect(options).toMatchObject({
      username: 'bot',
      password: 'p@ss/w:rd',
      db: 4,
      tls: {},
      enableTLSForSentinelMode: true,
      sentinelTLS: {},
    });
    expect(options.host).not.toBe('ignored.example');
  });

  it('refuses Sentinel and Cluster together, and a connection with neither a URL nor Sentinels', () => {
    expect(() =>
      connectRedis(undefined, {
        cluster: true,
        sentinel: { sentinels: [{ host: '127.0.0.1', port: 1 }], name: 'cache' },
      }),
    ).toThrow(/not both/);
    expect(() => connectRedis(undefined, {})).toThrow(/URL is required/);
  });
});
