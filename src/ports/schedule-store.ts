/** Scheduled summaries: the schedules themselves, who posts each fire time, and drift baselines. */
import type { Schedule } from '../core/schedule/types.js';

/** Why a schedule was not added: its id is taken, or its channel has as many as it may. */
export type AddScheduleResult = { ok: true } | { ok: false; reason: 'exists' | 'channel-full' };

export interface ScheduleStore {
  /** Adds a schedule only if its id is free and its channel has fewer than `maxPerChannel`, atomically. */
  addSchedule(schedule: Schedule, limits?: { maxPerChannel: number }): Promise<AddScheduleResult>;
  /** Every schedule, or a channel's, oldest first. */
  listSchedules(channelId?: string): Promise<Schedule[]>;
  /** Removes a schedule with its last claimed run and its drift baseline. */
  removeSchedule(id: string): Promise<boolean>;
  /**
   * Claims one fire time of a schedule: true for exactly one caller across every replica, and
   * false for any fire time at or before the last one claimed, so a replica that comes back
   * late never posts a run again.
   */
  claimRun(scheduleId: string, fireTime: number): Promise<boolean>;
  /**
   * Marks a run of the schedule as posting until `until` (a lease, in case the replica dies);
   * false while another run of it is still posting, on any replica.
   */
  startRun(scheduleId: string, now: number, until: number): Promise<boolean>;
  finishRun(scheduleId: string): Promise<void>;
  /** The last fire time claimed, for catching up a run missed while every replica was down. */
  lastRun(scheduleId: string): Promise<number | undefined>;
  /** The drift baseline of a summary (a schedule, or a channel's ad-hoc summaries). */
  readSnapshot(key: string): Promise<string | undefined>;
  /**
   * Writes a drift baseline. With `channel`, it is one of that channel's ad-hoc baselines, of
   * which only the `keep` most recently written are kept: others are deleted.
   */
  writeSnapshot(key: string, json: string, channel?: { channelId: string; keep: number }): Promise<void>;
  close(): Promise<void>;
}
