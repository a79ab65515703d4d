/** ScheduleStore over Redis (standalone, Sentinel or Cluster). Key layout: keys.ts. */
import { ScheduleSchema, scheduleSnapshotKey, type Schedule } from '../../core/schedule/types.js';
import type { AddScheduleResult, ScheduleStore } from '../../ports/schedule-store.js';
import { closeQuietly, connectRedis, type RedisConnection } from './connection.js';
import { reportUnavailableAsStoreErrors } from './errors.js';
import { scheduleKeys, SNAPSHOT_TTL_SECONDS, type ScheduleKeys } from './keys.js';
import type { CommandOf } from './lua-script.js';
import { ADD_SCHEDULE, CLAIM_RUN, START_RUN } from './scripts.js';

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
  private readonly claimScript: CommandOf<typeof CLAIM_RUN>;
  private readonly addScript: CommandOf<typeof ADD_SCHEDULE>;
  private readonly startRunScript: CommandOf<typeof START_RUN>;

  constructor(connection: RedisConnection | string, options: { keyPrefix?: string } = {}) {
    this.ownsConnection = typeof connection === 'string';
    this.redis = typeof connection === 'string' ? connectRedis(connection) : connection;
    this.keys = scheduleKeys(options.keyPrefix);
    this.claimScript = CLAIM_RUN.on(this.redis);
    this.addScript = ADD_SCHEDULE.on(this.redis);
    this.startRunScript = START_RUN.on(this.redis);
    // biome-ignore lint/correctness/noConstructorReturn: every method's Redis failures become the store's own
    return reportUnavailableAsStoreErrors(this);
  }

  async addSchedule(schedule: Schedule, limits?: { maxPerChannel: number }): Promise<AddScheduleResult> {
    const json = JSON.stringify(schedule);
    const channelNeedle = `"channelId":${JSON.stringify(schedule.channelId)}`;
    const result = await this.addScript({
      keys: { schedules: this.keys.all },
      args: { id: schedule.id, scheduleJson: json, mostPerChannel: limits?.maxPerChannel ?? 0, channelNeedle },
    });
    return result === 'ok' ? { ok: true } : { ok: false, reason: result === 'exists' ? 'exists' : 'channel-full' };
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
    await this.redis.hdel(this.keys.running, id);
    await this.redis.del(this.keys.snapshot(scheduleSnapshotKey(id)));
    return removed > 0;
  }

  async startRun(scheduleId: string, now: number, until: number): Promise<boolean> {
    const started = await this.startRunScript({
      keys: { running: this.keys.running },
      args: { scheduleId, now: String(now), postingUntil: String(until) },
    });
    return started === 1;
  }

  async finishRun(scheduleId: string): Promise<void> {
    await this.redis.hdel(this.keys.running, scheduleId);
  }

  async claimRun(scheduleId: string, fireTime: number): Promise<boolean> {
    const won = await this.claimScript({
      keys: { lastRun: this.keys.lastRun },
      args: { scheduleId, fireTime: String(fireTime) },
    });
    return won === 1;
  }

  async lastRun(scheduleId: string): Promise<number | undefined> {
    const value = await this.redis.hget(this.keys.lastRun, scheduleId);
    return value === null ? undefined : Number(value);
  }

  async readSnapshot(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.snapshot(key))) ?? undefined;
  }

  async writeSnapshot(key: string, json: string, channel?: { channelId: string; keep: number }): Promise<void> {
    await this.redis.set(this.keys.snapshot(key), json, 'EX', SNAPSHOT_TTL_SECONDS);
    if (!channel) return;
    const index = this.keys.adHoc(channel.channelId);
    await this.redis.multi().zadd(index, Date.now(), key).expire(index, SNAPSHOT_TTL_SECONDS).exec();
    // Beyond the newest `keep`, a channel's ad-hoc baselines are dropped: filters cannot grow Redis.
    const stale = await this.redis.zrevrange(index, channel.keep, -1);
    if (stale.length === 0) return;
    await this.redis
      .multi()
      .del(...stale.map((k) => this.keys.snapshot(k)))
      .zrem(index, ...stale)
      .exec();
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await closeQuietly(this.redis);
  }
}
