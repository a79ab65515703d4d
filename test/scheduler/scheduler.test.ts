/** The scheduler in process, on the memory schedule store: catching up and claiming runs. */
import { describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/core/schedule/types.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { MemoryScheduleStore } from '../../src/store/index.js';
import { recordingLog } from '../support/in-process.js';

const EVERY_MINUTE: Omit<Schedule, 'createdAt'> = {
  id: 'sch-1',
  channelId: 'C0OPS',
  cron: '* * * * *',
  timeZone: 'UTC',
  filters: [],
  createdBy: 'U0ALICE',
};

describe('Scheduler, in process', () => {
  it('catches up a run missed while every replica was down, once across two replicas', async () => {
    const store = new MemoryScheduleStore();
    await store.addSchedule({ ...EVERY_MINUTE, createdAt: Date.now() - 10 * 60_000 });
    const runs: Array<[string, number]> = [];
    const replica = () =>
      new Scheduler({
        store,
        logger: recordingLog(),
        run: (schedule, fireTime) => {
          runs.push([schedule.id, fireTime.getTime()]);
          return Promise.resolve();
        },
      });
    const [a, b] = [replica(), replica()];
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.stop(), b.stop()]);
    expect(runs).toHaveLength(1);
    expect(await store.lastRun('sch-1')).toBe(runs[0]?.[1]);
  });

  it('posts nothing for a fire time already claimed', async () => {
    const store = new MemoryScheduleStore();
    await store.addSchedule({ ...EVERY_MINUTE, createdAt: Date.now() - 10 * 60_000 });
    await store.claimRun('sch-1', Date.now());
    let runs = 0;
    const scheduler = new Scheduler({
      store,
      logger: recordingLog(),
      run: () => {
        runs++;
        return Promise.resolve();
      },
    });
    await scheduler.start();
    await scheduler.stop();
    expect(runs).toBe(0);
  });

  it('logs a failing run instead of throwing, naming the schedule', async () => {
    const store = new MemoryScheduleStore();
    await store.addSchedule({ ...EVERY_MINUTE, createdAt: Date.now() - 10 * 60_000 });
    const logger = recordingLog();
    const scheduler = new Scheduler({
      store,
      logger,
      run: () => Promise.reject(new Error('Slack is down')),
    });
    await scheduler.start();
    await scheduler.stop();
    expect(logger.lines.some((line) => line.includes('schedule sch-1') && line.includes('failed: Slack is down'))).toBe(
      true,
    );
  });

  it('adds a schedule to the store and removes it from there', async () => {
    const store = new MemoryScheduleStore();
    const scheduler = new Scheduler({ store, logger: recordingLog(), run: () => Promise.resolve() });
    await scheduler.start();
    await scheduler.add({ ...EVERY_MINUTE, createdAt: Date.now() });
    expect((await store.listSchedules()).map((s) => s.id)).toStrictEqual(['sch-1']);
    expect(await scheduler.remove('sch-1')).toBe(true);
    expect(await store.listSchedules()).toStrictEqual([]);
    await scheduler.stop();
  });
});
