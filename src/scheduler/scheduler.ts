/**
 * Runs scheduled summaries. Every replica keeps a croner job per schedule; at a fire time each
 * replica asks the store to claim that (schedule, fire time), and only the one that wins posts.
 * Schedules added or removed on another replica are picked up by a periodic sync, and a run that
 * was missed while every replica was down is posted once at start if it is less than one period old.
 */
import { Cron } from 'croner';
import { messageOf } from '../core/render/errors.js';
import { missedRun } from '../core/schedule/cron.js';
import type { Schedule } from '../core/schedule/types.js';
import type { AddScheduleResult, Log, ScheduleRegistry, ScheduleStore } from '../ports/index.js';

export type RunSchedule = (schedule: Schedule, fireTime: Date) => Promise<void>;

export interface SchedulerOptions {
  store: ScheduleStore;
  run: RunSchedule;
  logger: Pick<Log, 'info' | 'warn' | 'error'>;
  /** How often schedules are re-read from the store (changes made on other replicas). */
  syncIntervalMs?: number;
  /** How long a run may hold its schedule before another replica takes it for dead (default 30 min). */
  runLeaseMs?: number;
}

export class Scheduler implements ScheduleRegistry {
  private readonly jobs = new Map<string, { job: Cron; schedule: Schedule }>();
  private readonly running = new Set<Promise<void>>();
  private syncTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  private readonly runLeaseMs: number;

  constructor(private readonly options: SchedulerOptions) {
    this.runLeaseMs = options.runLeaseMs ?? 30 * 60_000;
  }

  async start(): Promise<void> {
    await this.sync();
    await this.catchUp();
    this.syncTimer = setInterval(() => {
      this.sync().catch((error: unknown) => this.options.logger.warn(`schedule sync failed: ${messageOf(error)}`));
    }, this.options.syncIntervalMs ?? 15_000);
    this.syncTimer.unref();
  }

  async add(schedule: Schedule, limits?: { maxPerChannel: number }): Promise<AddScheduleResult> {
    const added = await this.options.store.addSchedule(schedule, limits);
    if (added.ok) this.startJob(schedule);
    return added;
  }

  async remove(id: string): Promise<boolean> {
    this.stopJob(id);
    return this.options.store.removeSchedule(id);
  }

  /** Makes the local jobs match the store. */
  async sync(): Promise<void> {
    const schedules = await this.options.store.listSchedules();
    const wanted = new Set(schedules.map((s) => s.id));
    for (const id of this.jobs.keys()) if (!wanted.has(id)) this.stopJob(id);
    for (const schedule of schedules) if (!this.jobs.has(schedule.id)) this.startJob(schedule);
  }

  /** Stops firing and waits for runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.syncTimer);
    for (const id of [...this.jobs.keys()]) this.stopJob(id);
    await Promise.allSettled([...this.running]);
  }

  private startJob(schedule: Schedule): void {
    if (this.stopped || this.jobs.has(schedule.id)) return;
    const job = new Cron(schedule.cron, { mode: '5-or-6-parts', timezone: schedule.timeZone }, (self: Cron) => {
      const fireTime = self.currentRun() ?? new Date();
      this.track(this.fire(schedule, fireTime));
    });
    this.jobs.set(schedule.id, { job, schedule });
  }

  private stopJob(id: string): void {
    this.jobs.get(id)?.job.stop();
    this.jobs.delete(id);
  }

  private async catchUp(): Promise<void> {
    const now = new Date();
    for (const { schedule } of this.jobs.values()) {
      const lastRun = await this.options.store.lastRun(schedule.id);
      const missed = missedRun(schedule.cron, schedule.timeZone, now, lastRun, schedule.createdAt);
      if (missed) {
        this.options.logger.info(
          `schedule ${schedule.id}: catching up the run of ${missed.toISOString()} missed while the bot was down`,
        );
        this.track(this.fire(schedule, missed));
      }
    }
  }

  /** One fire time of one schedule: claimed by exactly one replica, and never fatal. */
  private async fire(schedule: Schedule, fireTime: Date): Promise<void> {
    try {
      const current = (await this.options.store.listSchedules(schedule.channelId)).some((s) => s.id === schedule.id);
      if (!current) return this.stopJob(schedule.id);
      if (!(await this.options.store.claimRun(schedule.id, fireTime.getTime()))) return;
      const now = Date.now();
      if (!(await this.options.store.startRun(schedule.id, now, now + this.runLeaseMs))) {
        this.options.logger.warn(
          `schedule ${schedule.id}: the previous run is still posting at ${fireTime.toISOString()}, so this run is skipped`,
        );
        return;
      }
      try {
        await this.options.run(schedule, fireTime);
      } finally {
        await this.options.store.finishRun(schedule.id);
      }
    } catch (error) {
      this.options.logger.error(`schedule ${schedule.id} (${fireTime.toISOString()}) failed: ${messageOf(error)}`);
    }
  }

  private track(run: Promise<void>): void {
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }
}
