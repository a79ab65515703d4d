/**
 * The timer-scale case of `npm run bench`: what one look of the bot's timer loops costs in Redis
 * commands and milliseconds with 10 pending timers and 10 waiting requests, and with 10,000 and
 * 1,000. A look reads what is due from sorted sets by score, so both should cost the same.
 *
 * Measured on the bench's own Redis server (its command count), with nothing due: the nudger's
 * look (the real Nudger), and the reads the other loops make on each look: due temporary
 * reminders and reverts (TemporaryChanges.tick), overdue requests (expireOverdue) and requests
 * left applying (the reconciler). With nothing due those reads are the whole of each look.
 */
import { Redis } from 'ioredis';
import { Nudger } from '../src/approval/nudger.js';
import { planChange } from '../src/core/change/plan.js';
import type { ChangeRequest } from '../src/core/change/types.js';
import { ServiceRecordSchema } from '../src/core/service/schema.js';
import { syntheticServices } from '../src/simulator/seed.js';
import { RedisChangeStore } from '../src/store/index.js';
import { changeKeys } from '../src/store/redis/keys.js';
import type { Messenger } from '../src/ports/messenger.js';
import type { BenchRedis } from './redis-server.js';

export interface TimerFigures {
  timers: number;
  waiting: number;
  commandsPerLook: number;
  msPerLook: number;
}

const MINUTE = 60_000;
const LOOKS = 20;

export async function timerScale(
  redis: BenchRedis,
  sizes: Array<[timers: number, waiting: number]>,
): Promise<TimerFigures[]> {
  const figures: TimerFigures[] = [];
  for (const [timers, waiting] of sizes) figures.push(await oneSize(redis, timers, waiting));
  return figures;
}

async function oneSize(redis: BenchRedis, timers: number, waiting: number): Promise<TimerFigures> {
  const keyPrefix = `bench-timers-${timers}:`;
  const store = new RedisChangeStore(redis.url, { keyPrefix });
  const raw = new Redis(redis.url);
  try {
    const now = Date.now();
    await fill(store, raw, keyPrefix, timers, waiting, now);
    const nudger = new Nudger({
      store,
      messenger: silentMessenger,
      defaults: { approvers: [], allowSelfApproval: false },
      logger: { warn: () => undefined },
      now: () => now,
    });
    // The first look of a process reads every waiting request once (and schedules each).
    for (let i = 0; i < 1 + Math.ceil(waiting / 500); i++) await nudger.tick();
    const look = async () => {
      await nudger.tick();
      await store.dueReminders(now, 20);
      await store.dueReverts(now, 20);
      await store.listOverdue(now, 100);
      await store.listApplying();
    };
    await look();
    const before = await redis.commandsProcessed();
    const times: number[] = [];
    for (let i = 0; i < LOOKS; i++) {
      const started = performance.now();
      await look();
      times.push(performance.now() - started);
    }
    const commands = ((await redis.commandsProcessed()) - before) / LOOKS;
    times.sort((a, b) => a - b);
    return { timers, waiting, commandsPerLook: commands, msPerLook: times[Math.floor(LOOKS / 2)] ?? NaN };
  } finally {
    const keys = await raw.keys(`${keyPrefix}*`);
    if (keys.length > 0) await raw.del(...keys);
    raw.disconnect();
    await store.close();
  }
}

/** `waiting` posted requests waiting for approval (none due), and `timers` temporary reverts and reminders (none due). */
async function fill(
  store: RedisChangeStore,
  raw: Redis,
  keyPrefix: string,
  timers: number,
  waiting: number,
  now: number,
) {
  const record = ServiceRecordSchema.parse(syntheticServices(1)[0]);
  const planned = planChange(record, { name: 'bench-renamed' });
  if (!planned.ok) throw new Error('the bench could not plan a rename');
  for (let from = 0; from < waiting; from += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, waiting - from) }, async (_, i) => {
        const id = `CR-${String(from + i).padStart(10, '0')}`;
        const request: ChangeRequest = {
          id,
          channelId: 'CTIMERS',
          requesterId: 'UBENCH1',
          plan: planned.plan,
          createdAt: now,
          expiresAt: now + 24 * 60 * MINUTE,
          status: 'pending',
        };
        await store.create(request);
        await store.setMessageTs(id, `1700000000.${String(from + i).padStart(6, '0')}`);
      }),
    );
  }
  // Only the sorted sets' members matter to a look: ids due hours from now.
  const keys = changeKeys(keyPrefix);
  for (let from = 0; from < timers; from += 1_000) {
    const pipeline = raw.pipeline();
    for (let i = from; i < Math.min(timers, from + 1_000); i++) {
      pipeline.zadd(keys.reverts, now + 60 * MINUTE + i, `CR-T${i}`);
      pipeline.zadd(keys.reminders, now + 30 * MINUTE + i, `CR-T${i}`);
    }
    await pipeline.exec();
  }
}

const silentMessenger: Messenger = {
  post: () => Promise.resolve('1.1'),
  update: () => Promise.resolve(),
  ephemeral: () => Promise.resolve(),
  dm: (userId) => Promise.resolve({ channelId: userId, ts: '1.1' }),
  groupMembers: () => Promise.resolve([]),
  channelMembers: () => Promise.resolve([]),
  publishHome: () => Promise.resolve(),
  userTimeZone: () => Promise.resolve(undefined),
  uploadFile: () => Promise.resolve(),
  permalink: () => Promise.resolve('https://example.slack.com/archives/C0/p1'),
};
