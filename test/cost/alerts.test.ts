/** COST_ALERTS: once per service per day, whichever replica looks first, over Redis and in memory. */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { CostAlerts } from '../../src/cost/alerts.js';
import { costAlerts, median } from '../../src/core/cost/alerts.js';
import { addDays, dayOf, type DayRange } from '../../src/core/cost/period.js';
import { CostRowSchema, type CostRow } from '../../src/core/cost/schema.js';
import type { CostDayStore, CostReader } from '../../src/ports/cost.js';
import { MemoryCostStore } from '../../src/store/memory/cost-store.js';
import { RedisCostStore } from '../../src/store/redis/cost-store.js';
import { RecordingMessenger } from '../support/recording-messenger.js';
import { recordingLog } from '../support/in-process.js';
import { deleteKeysWithPrefix, randomKeyPrefix, REDIS_URL } from '../support/redis.js';

const NOW = Date.parse('2026-05-20T10:00:00Z');
const YESTERDAY = addDays(dayOf(NOW), -1);

/** Service "calm" spends 10 a day; "spiky" 10 a day, then `spike` yesterday. */
function rows(spike: number): CostRow[] {
  const out: CostRow[] = [];
  for (let i = 7; i >= 0; i -= 1) {
    const date = addDays(YESTERDAY, -i);
    for (const [id, total] of [
      ['calm', 10],
      ['spiky', i === 0 ? spike : 10],
    ] as const) {
      out.push(CostRowSchema.parse({ date, entityType: 'service', entityId: id, entityName: id, totalCHC: total }));
    }
  }
  return out;
}

const reader = (data: CostRow[]): CostReader => ({ rows: (_range: DayRange) => Promise.resolve(data) });

describe('which services alert', () => {
  it('a jump by the factor over the 7-day median, or spend above the threshold', () => {
    expect(costAlerts(rows(25), NOW, { aboveChc: undefined, factor: 2 }).map((a) => a.serviceId)).toEqual(['spiky']);
    expect(costAlerts(rows(19), NOW, { aboveChc: undefined, factor: 2 })).toEqual([]);
    const above = costAlerts(rows(19), NOW, { aboveChc: 15, factor: 2 });
    expect(above.map((a) => [a.serviceId, a.above, a.jumped])).toEqual([['spiky', true, false]]);
    expect(median([3, 1, 2, 10])).toBe(2.5);
  });
});

const redis = new Redis(REDIS_URL);
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysWithPrefix(prefix);
  await redis.quit();
});

describe.each([
  [
    'Redis',
    (): CostDayStore => {
      const keyPrefix = randomKeyPrefix();
      prefixes.push(keyPrefix);
      return new RedisCostStore(redis, { keyPrefix });
    },
  ],
  ['memory', (): CostDayStore => new MemoryCostStore(() => NOW)],
])('alerts claimed over the %s store', (_name, open) => {
  it('two replicas looking at once, and again an hour later, post one alert per service per day', async () => {
    const claims = open();
    const messenger = new RecordingMessenger();
    const replica = () =>
      new CostAlerts({
        costs: reader(rows(40)),
        claims,
        messenger,
        channelId: 'C0COST',
        rules: { aboveChc: undefined, factor: 2 },
        slashCommand: '/clickhouse',
        logger: recordingLog(),
        now: () => NOW,
      });
    const [a, b] = [replica(), replica()];
    const posted = await Promise.all([a.look(), b.look(), a.look(), b.look()]);
    expect(posted.reduce((x, y) => x + y, 0)).toBe(1);
    expect(await b.look()).toBe(0);
    const [alert] = messenger.of('post', 'C0COST');
    expect(alert?.message.text).toMatch(
      new RegExp(
        `\\*spiky\\* {2}\`spiky\` spent \\*40\\.00 CHC\\* on ${YESTERDAY} \\(UTC\\), 4\\.0× its median of the 7 days before \\(10\\.00 CHC\\)`,
      ),
    );
    expect(alert?.message.text).toContain('`/clickhouse cost spiky` shows where it went.');
  });
});
