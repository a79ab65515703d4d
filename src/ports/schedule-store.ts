/** Scheduled summaries: the schedules themselves, who posts each fire time, and drift baselines. */
import type { Schedule } from '../core/schedule/types.js';

export interface ScheduleStore {
  addSchedule(schedule: Schedule): Promise<void>;
  /** Every schedule, or a channel's, oldest first. */
  listSchedules(channelId?: string): Promise<Schedule[]>;
  removeSchedule(id: string): Promise<boolean>;
  /**
   * Claims one fire time of a schedule: true for exactly one caller across every replica, and
   * false for any fire time at or before the last one claimed, so a replica that comes back
   * late never posts a run again.
   */
  claimRun(scheduleId: string, fireTime: number): Promise<boolean>;
  /** The last fire time claimed, for catching up a run missed while every replica was down. */
  lastRun(scheduleId: string): Promise<number | undefined>;
  /** The drift baseline of a summary (a schedule, or a channel's ad-hoc summaries). */
  readSnapshot(key: string): Promise<string | undefined>;
  writeSnapshot(key: string, json: string): Promise<void>;
  close(): Promise<void>;
}
