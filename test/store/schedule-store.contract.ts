/**
 * The ScheduleStore contract: one behaviour for the memory store of the single-process default and
 * the Redis store replicas share (single server, Cluster, Sentinel). Who posts a fire time is
 * decided here, so the claim is tested hardest. Each backend's test file calls
 * runScheduleStoreContract with a way to open its store.
 */
import { afterEach, expect, it } from 'vitest';
import type { Schedule } from '../../src/core/schedule/types.js';
import type { ScheduleStore } from '../../src/ports/schedule-store.js';

export interface OpenedScheduleStore {
  store: ScheduleStore;
  /** Another handle on the same data: for Redis a second store on its own connection. */
  sibling: ScheduleStore;
  dispose(): Promise<void>;
}

export type OpenScheduleStore = () => OpenedScheduleStore;

export const T0 = Date.parse('2025-01-15T12:00:00Z');

export function schedule(overrides: Partial<Schedule> = {}): Schedule {
  return {
    id: 'sch-000001',
    channelId: 'C-ops',
    cron: '0 9 * * 1-5',
    timeZone: 'Europe/Berlin',
    filters: ['tag:env=prod'],
    createdBy: 'U-alice',
    createdAt: T0,
    ...overrides,
  };
}

export function runScheduleStoreContract(open: OpenScheduleStore): void {
  let harness: OpenedScheduleStore | undefined;
  const start = () => {
    harness = open();
    return harness;
  };
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  it('adds a schedule only if its id is free, and never more than the channel may have, even at once', async () => {
    const { store, sibling } = start();
    expect(await store.addSchedule(schedule({ id: 'sch-a' }), { maxPerChannel: 3 })).toStrictEqual({ ok: true });
    expect(
      await sibling.addSchedule(schedule({ id: 'sch-a', cron: '0 10 * * *' }), { maxPerChannel: 3 }),
    ).toStrictEqual({ ok: false, reason: 'exists' });
    expect((await store.listSchedules())[0]?.cron).toBe('0 9 * * 1-5');
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 ? store : sibling).addSchedule(schedule({ id: `sch-r${i}`, createdAt: T0 + i }), { maxPerChannel: 3 }),
      ),
    );
    expect(racing.filter((r) => r.ok)).toHaveLength(2);
    expect(racing.filter((r) => !r.ok && r.reason === 'channel-full')).toHaveLength(4);
    expect(await store.listSchedules('C-ops')).toHaveLength(3);
    expect(
      await store.addSchedule(schedule({ id: 'sch-other', channelId: 'C-other' }), { maxPerChannel: 3 }),
    ).toStrictEqual({ ok: true });
  });

  it('lets one run of a schedule post at a time, on any replica, until it finishes or its lease ends', async () => {
    const { store, sibling } = start();
    expect(await store.startRun('sch-a', T0, T0 + 60_000)).toBe(true);
    expect(await sibling.startRun('sch-a', T0 + 1_000, T0 + 61_000)).toBe(false);
    expect(await sibling.startRun('sch-b', T0 + 1_000, T0 + 61_000)).toBe(true);
    await store.finishRun('sch-a');
    expect(await sibling.startRun('sch-a', T0 + 2_000, T0 + 62_000)).toBe(true);
    // A replica that died mid-run holds it only until its lease ends.
    expect(await store.startRun('sch-a', T0 + 62_001, T0 + 122_001)).toBe(true);
  });

  it('removes a schedule with its drift baseline', async () => {
    const { store, sibling } = start();
    await store.addSchedule(schedule({ id: 'sch-a' }));
    await store.writeSnapshot('schedule:sch-a', '{"v":1}');
    expect(await sibling.removeSchedule('sch-a')).toBe(true);
    expect(await store.readSnapshot('schedule:sch-a')).toBeUndefined();
  });

  it('keeps only the newest ad-hoc baselines of a channel', async () => {
    const { store } = start();
    for (let i = 0; i < 8; i += 1)
      await store.writeSnapshot(`adhoc:C-ops:f${i}`, `{"v":${i}}`, { channelId: 'C-ops', keep: 3 });
    await store.writeSnapshot('adhoc:C-other:f0', '{"v":0}', { channelId: 'C-other', keep: 3 });
    const kept = await Promise.all(Array.from({ length: 8 }, (_, i) => store.readSnapshot(`adhoc:C-ops:f${i}`)));
    expect(kept.map((k) => k !== undefined)).toStrictEqual([false, false, false, false, false, true, true, true]);
    expect(await store.readSnapshot('adhoc:C-other:f0')).toBe('{"v":0}');
  });

  it('lists what was added, every field intact, and nothing before', async () => {
    const { store, sibling } = start();
    expect(await store.listSchedules()).toStrictEqual([]);
    const added = schedule();
    await store.addSchedule(added);
    expect(await store.listSchedules()).toStrictEqual([added]);
    expect(await sibling.listSchedules('C-ops')).toStrictEqual([added]);
  });

  it('lists per channel, oldest first, whatever the order of adding', async () => {
    const { store, sibling } = start();
    const late = schedule({ id: 'sch-late', createdAt: T0 + 3_000 });
    const early = schedule({ id: 'sch-early', createdAt: T0 + 1_000 });
    const middle = schedule({ id: 'sch-middle', createdAt: T0 + 2_000 });
    const elsewhere = schedule({ id: 'sch-elsewhere', channelId: 'C-other', createdAt: T0 });
    for (const s of [late, elsewhere, early, middle]) await store.addSchedule(s);

    expect((await sibling.listSchedules('C-ops')).map((s) => s.id)).toStrictEqual([
      'sch-early',
      'sch-middle',
      'sch-late',
    ]);
    expect((await sibling.listSchedules('C-other')).map((s) => s.id)).toStrictEqual(['sch-elsewhere']);
    expect((await sibling.listSchedules('C-nobody')).map((s) => s.id)).toStrictEqual([]);
    expect((await sibling.listSchedules()).map((s) => s.id)).toStrictEqual([
      'sch-elsewhere',
      'sch-early',
      'sch-middle',
      'sch-late',
    ]);
  });

  it('does not let a caller change a stored schedule by mutating what it passed in or got back', async () => {
    const { store } = start();
    const added = schedule();
    await store.addSchedule(added);
    added.filters.push('tag:team=data');
    const [listed] = await store.listSchedules();
    listed?.filters.push('tag:x');
    expect((await store.listSchedules())[0]?.filters).toStrictEqual(['tag:env=prod']);
  });

  it('removes a schedule once: true the first time, false after, and others stay', async () => {
    const { store, sibling } = start();
    await store.addSchedule(schedule({ id: 'sch-a' }));
    await store.addSchedule(schedule({ id: 'sch-b', createdAt: T0 + 1 }));
    expect(await sibling.removeSchedule('sch-a')).toBe(true);
    expect(await store.removeSchedule('sch-a')).toBe(false);
    expect(await store.removeSchedule('sch-never')).toBe(false);
    expect((await store.listSchedules()).map((s) => s.id)).toStrictEqual(['sch-b']);
  });

  it('claims each fire time exactly once, and never a time at or before the last claimed', async () => {
    const { store, sibling } = start();
    expect(await store.lastRun('sch-a')).toBeUndefined();
    expect(await store.claimRun('sch-a', T0)).toBe(true);
    expect(await store.claimRun('sch-a', T0)).toBe(false);
    expect(await sibling.claimRun('sch-a', T0)).toBe(false);
    expect(await store.lastRun('sch-a')).toBe(T0);

    // The next fire time is claimable once; a replica coming back late cannot claim the earlier one.
    expect(await sibling.claimRun('sch-a', T0 + 2_000)).toBe(true);
    expect(await store.claimRun('sch-a', T0)).toBe(false);
    expect(await store.claimRun('sch-a', T0 + 1_000)).toBe(false);
    expect(await store.claimRun('sch-a', T0 + 2_000)).toBe(false);
    expect(await store.lastRun('sch-a')).toBe(T0 + 2_000);
    expect(await sibling.lastRun('sch-a')).toBe(T0 + 2_000);
  });

  it('keeps claims of different schedules apart', async () => {
    const { store } = start();
    expect(await store.claimRun('sch-a', T0)).toBe(true);
    expect(await store.claimRun('sch-b', T0)).toBe(true);
    expect(await store.claimRun('sch-b', T0 - 60_000)).toBe(false);
    expect(await store.lastRun('sch-a')).toBe(T0);
    expect(await store.lastRun('sch-c')).toBeUndefined();
  });

  it('gives exactly one of 100 concurrent claims of one fire time, over two connections', async () => {
    const { store, sibling } = start();
    const fireTime = T0 + 4_000;
    const claims = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? store : sibling).claimRun('sch-race', fireTime)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.lastRun('sch-race')).toBe(fireTime);
  });

  it('gives exactly one winner per fire time when replicas race over several fire times', async () => {
    const { store, sibling } = start();
    const fireTimes = [T0, T0 + 2_000, T0 + 4_000, T0 + 6_000];
    const wins: number[] = [];
    for (const fireTime of fireTimes) {
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : sibling).claimRun('sch-race', fireTime)),
      );
      wins.push(claims.filter(Boolean).length);
    }
    expect(wins).toStrictEqual([1, 1, 1, 1]);
  });

  it('forgets the last claimed run with the schedule, so an id reused later starts afresh', async () => {
    const { store } = start();
    await store.addSchedule(schedule({ id: 'sch-a' }));
    await store.claimRun('sch-a', T0);
    await store.removeSchedule('sch-a');
    expect(await store.lastRun('sch-a')).toBeUndefined();
  });

  it('round-trips drift snapshots by key, overwrites them, and knows none it was not given', async () => {
    const { store, sibling } = start();
    expect(await store.readSnapshot('schedule:sch-a')).toBeUndefined();
    const json = JSON.stringify({
      version: 1,
      takenAt: T0,
      services: { id1: { name: 'orders-prod', ipAccessList: [['0.0.0.0/0', 'anyone ✓']] } },
    });
    await store.writeSnapshot('schedule:sch-a', json);
    expect(await sibling.readSnapshot('schedule:sch-a')).toBe(json);
    expect(await sibling.readSnapshot('adhoc:C-ops:')).toBeUndefined();

    const newer = JSON.stringify({ version: 1, takenAt: T0 + 1, services: {} });
    await sibling.writeSnapshot('schedule:sch-a', newer);
    expect(await store.readSnapshot('schedule:sch-a')).toBe(newer);
  });

  it('keeps a large snapshot (1,000 services) intact', async () => {
    const { store, sibling } = start();
    const services = Object.fromEntries(
      Array.from({ length: 1_000 }, (_, i) => [
        `id-${i}`,
        { name: `svc-${i}`, ipAccessList: [[`10.0.${i >> 8}.${i & 255}`, 'client']] },
      ]),
    );
    const json = JSON.stringify({ version: 1, takenAt: T0, services });
    await store.writeSnapshot('schedule:big', json);
    expect(await sibling.readSnapshot('schedule:big')).toBe(json);
  });
}
