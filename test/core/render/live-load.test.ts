/** The live-load line of a change request (core/render/live-load.ts), drawn from what the plan keeps. */
import { describe, expect, it } from 'vitest';
import type { ChangePlan } from '../../../src/core/change/types.js';
import { liveLoadText } from '../../../src/core/render/live-load.js';

const GIB = 1024 ** 3;
const stop: ChangePlan = {
  serviceId: 's',
  serviceName: 'orders',
  update: {},
  operations: [{ endpoint: 'state', body: { command: 'stop' }, expect: { state: 'stopped' } }],
  changes: [],
  warnings: [],
  before: {},
};
const read = {
  kind: 'read',
  readAt: 1_000,
  askedAt: 21_000,
  queries: 1,
  busiestMemoryBytes: 41 * GIB,
  replicaSizeGb: 48,
} as const;

describe('liveLoadText', () => {
  it('says "right now" while the request waits, and "when asked" once it is decided', () => {
    const plan = { ...stop, liveLoad: read };
    expect(liveLoadText(plan, 'pending')).toStrictEqual({
      line: '*Right now:* 1 query running, 41 of 48 GB in use on the busiest replica, read 20 s ago.',
      warnings: ['1 query was running when this was asked: this change ends it.'],
    });
    expect(liveLoadText(plan, 'applied')?.line).toBe(
      '*When asked:* 1 query running, 41 of 48 GB in use on the busiest replica, read 20 s before.',
    );
  });

  it('warns about nothing when no query runs, and says a failed or slow read in one plain line', () => {
    expect(liveLoadText({ ...stop, liveLoad: { ...read, queries: 0 } }, 'pending')?.warnings).toStrictEqual([]);
    expect(
      liveLoadText({ ...stop, liveLoad: { kind: 'failed', why: 'slow', afterMs: 1_500 } }, 'pending'),
    ).toStrictEqual({
      line: 'Live load could not be read: no answer within 1.5 s, and the request did not wait longer.',
      warnings: [],
    });
    expect(liveLoadText({ ...stop, liveLoad: { kind: 'failed', why: 'busy' } }, 'pending')?.line).toContain(
      'Live load could not be read: the bot’s share'.replace('’', "'"),
    );
    expect(liveLoadText(stop, 'pending')).toBeUndefined();
  });
});
