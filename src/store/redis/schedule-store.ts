/** ScheduleStore over Redis (standalone, Sentinel or Cluster). Key layout: keys.ts. */
import { ScheduleSchema, type Schedule } from '../../core/schedule/types.js';
import type { ScheduleStore } from '../../ports/schedule-store.js';
import { closeQuietly, connectRedis, type RedisConnection } from './connection.js';
import { reportUnavailableAsStoreErrors } from './errors.js';
import { scheduleKeys, SNAPSHOT_TTL_SECONDS, type ScheduleKeys } from './keys.js';
import { CLAIM_RUN_COMMAND, CLAIM_RUN_LUA, defineScript, type ScriptCommand } from './scripts.js';

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
  private readonly keys: ScheduleKeys;
  private readonly claimScript: ScriptCommand;

  constructor(connection: RedisConnection | string, options: { keyPrefix?: string } = {}) {
    this.ownsConnection = typeof connection === 'string';
    this.redis = typeof connection === 'string' ? connectRedis(connection) : connection;
    this.keys = scheduleKeys(options.keyPrefix);
    this.claimScript = defineScript(this.redis, CLAIM_RUN_COMMAND, 1, CLAIM_RUN_LUA);
    // biome-ignore lint/correctness/noConstructorReturn: every method's Redis failures become the store's own
    return reportUnavailableAsStoreErrors(this);
  }

  async addSchedule(schedule: Schedule): Promise<void> {
    await this.redis.hset(this.keys.all, schedule.id, JSON.stringify(schedule));
  }

  async listSchedules(channelId?: string): Promise<Schedule[]> {
    const raw = await this.redis.hgetall(this.keys.all);
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
    const removed = await this.redis.hdel(this.keys.all, id);
    await this.redis.hdel(this.keys.lastRun, id);
    return removed > 0;
  }

  async claimRun(scheduleId: string, fireTime: number): Promise<boolean> {
    const won = await this.claimScript(this.keys.lastRun, scheduleId, String(fireTime));
    return won === 1;
  }

  async lastRun(scheduleId: string): Promise<number | undefined> {
    const value = await this.redis.hget(this.keys.lastRun, scheduleId);
    return value === null ? undefined : Number(value);
  }

  async readSnapshot(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.snapshot(key))) ?? undefined;
  }

  async writeSnapshot(key: string, json: string): Promise<void> {
    await this.redis.set(this.keys.snapshot(key), json, 'EX', SNAPSHOT_TTL_SECONDS);
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await closeQuietly(this.redis);
  }
}
