import { scheduleSnapshotKey, type Schedule } from '../../core/schedule/types.js';
import type { AddScheduleResult, ScheduleStore } from '../../ports/schedule-store.js';

/** The single-process schedule store, with the same semantics as the Redis one. */
export class MemoryScheduleStore implements ScheduleStore {
  private readonly schedules = new Map<string, Schedule>();
  private readonly lastRuns = new Map<string, number>();
  private readonly snapshots = new Map<string, string>();
  private readonly running = new Map<string, number>();
  /** Per channel, its ad-hoc baseline keys, oldest write first. */
  private readonly adHoc = new Map<string, string[]>();

  async addSchedule(schedule: Schedule, limits?: { maxPerChannel: number }): Promise<AddScheduleResult> {
    if (this.schedules.has(schedule.id)) return { ok: false, reason: 'exists' };
    const inChannel = [...this.schedules.values()].filter((s) => s.channelId === schedule.channelId).length;
    if (limits && limits.maxPerChannel > 0 && inChannel >= limits.maxPerChannel)
      return { ok: false, reason: 'channel-full' };
    this.schedules.set(schedule.id, structuredClone(schedule));
    return { ok: true };
  }

  async listSchedules(channelId?: string): Promise<Schedule[]> {
    return [...this.schedules.values()]
      .filter((s) => channelId === undefined || s.channelId === channelId)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((s) => structuredClone(s));
  }

  async removeSchedule(id: string): Promise<boolean> {
    this.lastRuns.delete(id);
    this.running.delete(id);
    this.snapshots.delete(scheduleSnapshotKey(id));
    return this.schedules.delete(id);
  }

  async startRun(scheduleId: string, now: number, until: number): Promise<boolean> {
    if ((this.running.get(scheduleId) ?? 0) > now) return false;
    this.running.set(scheduleId, until);
    return true;
  }

  async finishRun(scheduleId: string): Promise<void> {
    this.running.delete(scheduleId);
  }

  async claimRun(scheduleId: string, fireTime: number): Promise<boolean> {
    if ((this.lastRuns.get(scheduleId) ?? -Infinity) >= fireTime) return false;
    this.lastRuns.set(scheduleId, fireTime);
    return true;
  }

  async lastRun(scheduleId: string): Promise<number | undefined> {
    return this.lastRuns.get(scheduleId);
  }

  async readSnapshot(key: string): Promise<string | undefined> {
    return this.snapshots.get(key);
  }

  async writeSnapshot(key: string, json: string, channel?: { channelId: string; keep: number }): Promise<void> {
    this.snapshots.set(key, json);
    if (!channel) return;
    const keys = [...(this.adHoc.get(channel.channelId) ?? []).filter((k) => k !== key), key];
    for (const stale of keys.splice(0, Math.max(0, keys.length - channel.keep))) this.snapshots.delete(stale);
    this.adHoc.set(channel.channelId, keys);
  }

  async close(): Promise<void> {}
}
