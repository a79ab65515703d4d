import { describe, expect, it } from 'vitest';
import { planChange } from '../../../src/core/change/plan.js';
import {
  durationProblem,
  formatDuration,
  planRevert,
  planUndo,
  readDuration,
  temporaryPlanProblem,
  temporaryTerms,
} from '../../../src/core/change/temporary.js';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import { mustPlan, service } from '../fixtures.js';

const DAY = 24 * 3600 * 1000;

/** The service after a plan was applied, as the API would show it. */
function appliedTo(record: ServiceRecord, changes: Record<string, unknown>): ServiceRecord {
  return service({ ...record, ...changes });
}

describe('durations', () => {
  it.each([
    ['30m', 30 * 60_000],
    ['2h', 2 * 3600_000],
    ['3d', 3 * DAY],
    ['90 minutes', 90 * 60_000],
    ['1H', 3600_000],
  ])('reads %s', (text, ms) => {
    expect(readDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['30s', 'soon', '2 weeks', '-1h', '1.5h', ''])('refuses %j with how to write one', (text) => {
    const reading = readDuration(text);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.message).toContain('30m, 2h or 3d');
  });

  it('accepts 1 minute to the maximum, and says the range otherwise', () => {
    expect(durationProblem(60_000, 7 * DAY)).toBeUndefined();
    expect(durationProblem(7 * DAY, 7 * DAY)).toBeUndefined();
    expect(durationProblem(59_999, 7 * DAY)).toContain('at least 1 minute');
    expect(durationProblem(7 * DAY + 60_000, 7 * DAY)).toContain('at most 7d');
    expect(formatDuration(DAY + 90 * 60_000)).toBe('1d 1h 30m');
  });

  it('reminds 10 minutes before, or at half-time for grants under 20 minutes', () => {
    expect(temporaryTerms(2 * 3600_000).remindAfterMs).toBe(110 * 60_000);
    expect(temporaryTerms(20 * 60_000).remindAfterMs).toBe(10 * 60_000);
    expect(temporaryTerms(60_000).remindAfterMs).toBe(30_000);
  });
});

describe('what can be temporary', () => {
  it('only new IP entries and MySQL switched on', () => {
    const record = service();
    const grant = { ipAdd: [{ source: '192.0.2.1/32' }], mysqlEndpoint: true };
    expect(temporaryPlanProblem(grant, mustPlan(record, grant))).toBeUndefined();
    expect(temporaryPlanProblem({ name: 'x' }, mustPlan(record, { name: 'x' }))).toContain('Only ip add');
    const relabel = { ipAdd: [{ source: '10.0.0.0/8', description: 'partner' }] };
    expect(temporaryPlanProblem(relabel, mustPlan(record, relabel))).toContain('already in the IP access list');
  });
});

describe('planRevert', () => {
  const record = service();
  const plan = mustPlan(record, { ipAdd: [{ source: '192.0.2.1/32', description: 'hotel' }], mysqlEndpoint: true });

  it('removes what the change added while it is still there', () => {
    const now = appliedTo(record, {
      ipAccessList: [...(record.ipAccessList ?? []), { source: '192.0.2.1/32', description: 'renamed by someone' }],
      endpoints: [...(record.endpoints ?? []), { protocol: 'mysql', host: 'h', port: 3306, username: 'u' }],
    });
    expect(planRevert(plan, now)).toEqual({
      intent: { ipRemove: ['192.0.2.1/32'], mysqlEndpoint: false },
      leftAlone: [],
    });
  });

  it('leaves alone what someone else already took back, and says so', () => {
    const reverted = planRevert(plan, record);
    expect(reverted.intent).toEqual({});
    expect(reverted.leftAlone.join(' ')).toMatch(
      /192\.0\.2\.1\/32 is no longer in the IP access list[\s\S]*MySQL endpoint is already off/,
    );
  });
});

describe('planUndo', () => {
  const record = service();

  it('inverts every kind of change while the service still shows it', () => {
    const intent = {
      name: 'orders-2',
      releaseChannel: 'fast' as const,
      ipAdd: [{ source: '192.0.2.1/32' }, { source: '10.0.0.0/8', description: 'new label' }],
      ipRemove: ['203.0.113.7/32'],
      privateEndpointAttach: ['pe-free'],
      privateEndpointDetach: ['pe-attached'],
      tdeKeyId: 'key-2',
    };
    const plan = mustPlan(record, intent);
    const now = appliedTo(record, {
      name: 'orders-2',
      releaseChannel: 'fast',
      ipAccessList: [{ source: '10.0.0.0/8', description: 'new label' }, { source: '192.0.2.1/32' }],
      privateEndpointIds: ['pe-free'],
      transparentDataEncryptionKeyId: 'key-2',
    });
    const undo = planUndo(plan, now);
    expect(undo.leftAlone).toEqual([]);
    expect(undo.intent).toEqual({
      name: 'orders-prod',
      releaseChannel: 'default',
      tdeKeyId: 'key-1',
      ipAdd: [
        { source: '10.0.0.0/8', description: 'office' },
        { source: '203.0.113.7/32', description: 'vpn' },
      ],
      ipRemove: ['192.0.2.1/32'],
      privateEndpointAttach: ['pe-attached'],
      privateEndpointDetach: ['pe-free'],
    });
    const back = planChange(now, undo.intent);
    expect(back.ok).toBe(true);
  });

  it('takes added tags off, gives replaced ones their old value and puts removed ones back', () => {
    const tagged = service({
      ...record,
      tags: [
        { key: 'env', value: 'prod' },
        { key: 'team', value: 'data' },
      ],
    });
    const plan = mustPlan(tagged, {
      tagAdd: [
        { key: 'env', value: 'staging' },
        { key: 'owner', value: 'ana' },
      ],
      tagRemove: [{ key: 'team' }],
    });
    const now = appliedTo(tagged, {
      tags: [
        { key: 'env', value: 'staging' },
        { key: 'owner', value: 'ana' },
      ],
    });
    const undo = planUndo(plan, now);
    expect(undo).toEqual({
      intent: {
        tagAdd: [
          { key: 'env', value: 'prod' },
          { key: 'team', value: 'data' },
        ],
        tagRemove: [{ key: 'owner', value: 'ana' }],
      },
      leftAlone: [],
    });
    const back = planChange(now, undo.intent);
    expect(back.ok && back.plan.update.tags).toEqual({
      remove: [
        { key: 'owner', value: 'ana' },
        { key: 'env', value: 'staging' },
      ],
      add: [
        { key: 'env', value: 'prod' },
        { key: 'team', value: 'data' },
      ],
    });
  });

  it('leaves tags alone that someone already changed back, and says so', () => {
    const tagged = service({
      ...record,
      tags: [
        { key: 'env', value: 'prod' },
        { key: 'team', value: 'data' },
      ],
    });
    const plan = mustPlan(tagged, { tagAdd: [{ key: 'owner', value: 'ana' }], tagRemove: [{ key: 'team' }] });
    const undo = planUndo(
      plan,
      appliedTo(tagged, {
        tags: [
          { key: 'env', value: 'prod' },
          { key: 'team', value: 'ops' },
        ],
      }),
    );
    expect(undo.intent).toEqual({});
    expect(undo.leftAlone).toEqual([
      'Tag owner=ana is no longer set as the change left it.',
      'Tag team is already set again.',
    ]);
  });

  it('drops parts already undone and keeps the rest', () => {
    const plan = mustPlan(record, { name: 'orders-2', mysqlEndpoint: true });
    const undo = planUndo(plan, appliedTo(record, { name: 'orders-2' }));
    expect(undo.intent).toEqual({ name: 'orders-prod' });
    expect(undo.leftAlone).toEqual(['The MySQL endpoint is no longer on.']);
  });
});
