import type { Schedule } from '../../core/schedule/types.js';
import type { ScheduleStore } from '../../ports/schedule-store.js';

/** The single-process schedule store, with the same semantics as the Redis one. */
export class MemoryScheduleStore implements ScheduleStore {
  private readonly schedules = new Map<string, Schedule>();
  private readonly lastRuns = new Map<string, number>();
  private readonly snapshots = new Map<string, string>();

  async addSchedule(schedule: Schedule): Promise<void> {
    this.schedules.set(schedule.id, structuredClone(schedule));
  }

  async listSchedules(channelId?: string): Promise<Schedule[]> {
    return [...this.schedules.values()]
      .filter((s) => channelId === undefined || s.channelId === channelId)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((s) => structuredClone(s));
  }

  async removeSchedule(id: string): Promise<boolean> {
    this.lastRuns.delete(id);
    return this.schedules.delete(id);
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

  async writeSnapshot(key: string, json: string): Promise<void> {
    this.snapshots.set(key, json);
  }

  async close(): Promise<void> {}
}
