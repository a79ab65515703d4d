import { scheduleSnapshotKey, type Schedule } from '../../core/schedule/types.js';
import type { AddScheduleResult, ScheduleStore } from '../../ports/schedule-store.js';
import { answer } from '../../ports/answer.js';

/** The single-process schedule store, with the same semantics as the Redis one. */
export class MemoryScheduleStore implements ScheduleStore {
  private readonly schedules = new Map<string, Schedule>();
  private readonly lastRuns = new Map<string, number>();
  private readonly snapshots = new Map<string, string>();
  private readonly running = new Map<string, number>();
  /** Per channel, its ad-hoc baseline keys, oldest write first. */
  private readonly adHoc = new Map<string, string[]>();

  addSchedule(schedule: Schedule, limits?: { maxPerChannel: number }): Promise<AddScheduleResult> {
    return answer(() => {
      if (this.schedules.has(schedule.id)) return { ok: false, reason: 'exists' };
      const inChannel = [...this.schedules.values()].filter((s) => s.channelId === schedule.channelId).length;
      if (limits && limits.maxPerChannel > 0 && inChannel >= limits.maxPerChannel)
        return { ok: false, reason: 'channel-full' };
      this.schedules.set(schedule.id, structuredClone(schedule));
      return { ok: true };
    });
  }

  listSchedules(channelId?: string): Promise<Schedule[]> {
    return answer(() =>
      [...this.schedules.values()]
        .filter((s) => channelId === undefined || s.channelId === channelId)
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((s) => structuredClone(s)),
    );
  }

  removeSchedule(id: string): Promise<boolean> {
    return answer(() => {
      this.lastRuns.delete(id);
      this.running.delete(id);
      this.snapshots.delete(scheduleSnapshotKey(id));
      return this.schedules.delete(id);
    });
  }

  startRun(scheduleId: string, now: number, until: number): Promise<boolean> {
    return answer(() => {
      if ((this.running.get(scheduleId) ?? 0) > now) return false;
      this.running.set(scheduleId, until);
      return true;
    });
  }

  finishRun(scheduleId: string): Promise<void> {
    return answer(() => {
      this.running.delete(scheduleId);
    });
  }

  claimRun(scheduleId: string, fireTime: number): Promise<boolean> {
    return answer(() => {
      if ((this.lastRuns.get(scheduleId) ?? -Infinity) >= fireTime) return false;
      this.lastRuns.set(scheduleId, fireTime);
      return true;
    });
  }

  lastRun(scheduleId: string): Promise<number | undefined> {
    return answer(() => this.lastRuns.get(scheduleId));
  }

  readSnapshot(key: string): Promise<string | undefined> {
    return answer(() => this.snapshots.get(key));
  }

  writeSnapshot(key: string, json: string, channel?: { channelId: string; keep: number }): Promise<void> {
    return answer(() => {
      this.snapshots.set(key, json);
      if (!channel) return;
      const keys = [...(this.adHoc.get(channel.channelId) ?? []).filter((k) => k !== key), key];
      for (const stale of keys.splice(0, Math.max(0, keys.length - channel.keep))) this.snapshots.delete(stale);
      this.adHoc.set(channel.channelId, keys);
    });
  }

  async close(): Promise<void> {}
}
