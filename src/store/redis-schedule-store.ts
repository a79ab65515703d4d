/**
 * Schedules in Redis. Keys share the hash tag `{schedules}` (one Cluster slot):
 *   <prefix>{schedules}:all          HASH  id -> schedule JSON
 *   <prefix>{schedules}:lastrun      HASH  id -> last fire time claimed (ms)
 *   <prefix>{schedules}:snap:<key>   STRING drift baseline JSON (expires after 90 days)
 */
import { connectRedis, defineScript, type RedisConnection, type ScriptCommand } from './redis-store.js';
import { DEFAULT_KEY_PREFIX } from './redis-keys.js';
import { ScheduleSchema, SNAPSHOT_TTL_SECONDS, type Schedule, type ScheduleStore } from './schedules.js';

// Compare-and-set of the last fire time: the first replica to claim a fire time wins it, and no
// replica can claim it (or an earlier one) again.
const CLAIM_RUN = `
local last = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
local fire = tonumber(ARGV[2])
if fire <= last then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export class RedisScheduleStore implements ScheduleStore {
  private readonly redis: RedisConnection;
  private readonly ownsConnection: boolean;
  private readonly base: string;
  private readonly claimScript: ScriptCommand;

  constructor(connection: RedisConnection | string, options: { keyPrefix?: string } = {}) {
    this.ownsConnection = typeof connection === 'string';
    this.redis = typeof connection === 'string' ? connectRedis(connection) : connection;
    this.base = `${options.keyPrefix ?? DEFAULT_KEY_PREFIX}{schedules}:`;
    this.claimScript = defineScript(this.redis, 'chbotClaimRun', 1, CLAIM_RUN);
  }

  async addSchedule(schedule: Schedule): Promise<void> {
    await this.redis.hset(`${this.base}all`, schedule.id, JSON.stringify(schedule));
  }

  async listSchedules(channelId?: string): Promise<Schedule[]> {
    const raw = await this.redis.hgetall(`${this.base}all`);
    return Object.values(raw)
      .flatMap((json) => {
        // One damaged entry must not stop the scheduler (or the bot's start).
        const parsed = ScheduleSchema.safeParse(parseJson(json));
        return parsed.success ? [parsed.data] : [];
      })
      .filter((s) => channelId === undefined || s.channelId === channelId)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async removeSchedule(id: string): Promise<boolean> {
    const removed = await this.redis.hdel(`${this.base}all`, id);
    await this.redis.hdel(`${this.base}lastrun`, id);
    return removed > 0;
  }

  async claimRun(scheduleId: string, fireTime: number): Promise<boolean> {
    const won = await this.claimScript(`${this.base}lastrun`, scheduleId, String(fireTime));
    return won === 1;
  }

  async lastRun(scheduleId: string): Promise<number | undefined> {
    const value = await this.redis.hget(`${this.base}lastrun`, scheduleId);
    return value === null ? undefined : Number(value);
  }

  async readSnapshot(key: string): Promise<string | undefined> {
    return (await this.redis.get(`${this.base}snap:${key}`)) ?? undefined;
  }

  async writeSnapshot(key: string, json: string): Promise<void> {
    await this.redis.set(`${this.base}snap:${key}`, json, 'EX', SNAPSHOT_TTL_SECONDS);
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.redis.quit().catch(() => undefined);
  }
}
