/** REDIS_CLUSTER: off by default, a flag like the others, and useless without REDIS_URL. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const minimal = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'secret' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('REDIS_CLUSTER', () => {
  it('is off unless set', () => {
    expect(loadConfig({ ...minimal, REDIS_URL: 'redis://10.0.0.5:6379' }).redisCluster).toBe(false);
    expect(loadConfig({ ...minimal, REDIS_URL: 'redis://10.0.0.5:6379', REDIS_CLUSTER: '' }).redisCluster).toBe(false);
  });

  it('reads the usual flag words', () => {
    for (const [value, expected] of [
      ['true', true],
      ['1', true],
      ['yes', true],
      ['false', false],
      ['0', false],
      ['no', false],
    ] as const) {
      expect(
        loadConfig({ ...minimal, REDIS_URL: 'rediss://:pw@cache.example:6380', REDIS_CLUSTER: value }).redisCluster,
        value,
      ).toBe(expected);
    }
  });

  it('refuses other words, and a cluster without a seed node, naming the fix', () => {
    expect(problems({ ...minimal, REDIS_URL: 'redis://10.0.0.5:6379', REDIS_CLUSTER: 'cluster' })).toEqual([
      expect.stringMatching(/^REDIS_CLUSTER /),
    ]);
    expect(problems({ ...minimal, REDIS_CLUSTER: 'true' })).toEqual([
      expect.stringMatching(/REDIS_URL is required when REDIS_CLUSTER is true.*redis:\/\//),
    ]);
  });
});
