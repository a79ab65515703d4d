import { describe, expect, it } from 'vitest';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import { planIsVisible } from '../../../src/core/change/verify.js';
import type { ChangeIntent } from '../../../src/core/change/types.js';
import { mustPlan, service } from '../fixtures.js';

interface Case {
  what: string;
  intent: ChangeIntent;
  /** The service before the change, when not the default fixture. */
  base?: Record<string, unknown>;
  applied: Record<string, unknown>;
  notApplied?: Record<string, unknown>;
}

const cases: Case[] = [
  { what: 'a rename', intent: { name: 'orders-main' }, applied: { name: 'orders-main' } },
  { what: 'a release channel switch', intent: { releaseChannel: 'fast' }, applied: { releaseChannel: 'fast' } },
  {
    what: 'opening MySQL',
    intent: { mysqlEndpoint: true },
    applied: { endpoints: [{ protocol: 'mysql', enabled: true }] },
  },
  {
    what: 'closing MySQL',
    intent: { mysqlEndpoint: false },
    base: { endpoints: [{ protocol: 'mysql' }] },
    applied: { endpoints: [{ protocol: 'https' }] },
    notApplied: { endpoints: [{ protocol: 'mysql' }] },
  },
  {
    what: 'an IP addition',
    intent: { ipAdd: [{ source: '192.0.2.1', description: 'lab' }] },
    applied: {
      ipAccessList: [
        { source: '10.0.0.0/8', description: 'office' },
        { source: '203.0.113.7/32', description: 'vpn' },
        { source: '192.0.2.1', description: 'lab' },
      ],
    },
  },
  {
    what: 'an IP removal',
    intent: { ipRemove: ['203.0.113.7/32'] },
    applied: { ipAccessList: [{ source: '10.0.0.0/8', description: 'office' }] },
  },
  {
    what: 'a description change',
    intent: { ipAdd: [{ source: '10.0.0.0/8', description: 'head office' }] },
    applied: {
      ipAccessList: [
        { source: '10.0.0.0/8', description: 'head office' },
        { source: '203.0.113.7/32', description: 'vpn' },
      ],
    },
  },
  {
    what: 'attaching a private endpoint',
    intent: { privateEndpointAttach: ['pe-free'] },
    applied: { privateEndpointIds: ['pe-attached', 'pe-free'] },
  },
  {
    what: 'detaching a private endpoint',
    intent: { privateEndpointDetach: ['pe-attached'] },
    applied: { privateEndpointIds: [] },
  },
  { what: 'a TDE key rotation', intent: { tdeKeyId: 'key-2' }, applied: { transparentDataEncryptionKeyId: 'key-2' } },
];

describe('planIsVisible: does the service show the change?', () => {
  it.each(cases)('is true once $what shows in the record', ({ intent, base, applied }) => {
    const plan = mustPlan(service(base), intent);
    expect(planIsVisible(plan, service(applied))).toBe(true);
  });

  it.each(cases)('is false while $what does not show', ({ intent, base, notApplied }) => {
    const plan = mustPlan(service(base), intent);
    const unchanged: ServiceRecord = notApplied ? service(notApplied) : service();
    expect(planIsVisible(plan, unchanged)).toBe(false);
  });

  it('is false when only part of a multi-field change shows', () => {
    const plan = mustPlan(service(), { name: 'orders-main', tdeKeyId: 'key-2' });
    expect(planIsVisible(plan, service({ name: 'orders-main' }))).toBe(false);
    expect(planIsVisible(plan, service({ name: 'orders-main', transparentDataEncryptionKeyId: 'key-2' }))).toBe(true);
  });

  it('is false when an added entry shows with another description', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: '192.0.2.1', description: 'lab' }] });
    expect(planIsVisible(plan, service({ ipAccessList: [{ source: '192.0.2.1', description: 'other' }] }))).toBe(false);
  });

  it('sees an added entry without a description in a record that omits the description', () => {
    const plan = mustPlan(service(), { ipAdd: [{ source: '192.0.2.1' }] });
    expect(planIsVisible(plan, service({ ipAccessList: [{ source: '192.0.2.1' }] }))).toBe(true);
  });

  it('is true for a removal and an addition once both show', () => {
    const plan = mustPlan(service(), { ipRemove: ['10.0.0.0/8'], ipAdd: [{ source: '10.1.0.0/16' }] });
    expect(
      planIsVisible(
        plan,
        service({ ipAccessList: [{ source: '10.1.0.0/16' }, { source: '203.0.113.7/32', description: 'vpn' }] }),
      ),
    ).toBe(true);
    expect(
      planIsVisible(
        plan,
        service({ ipAccessList: [{ source: '10.1.0.0/16' }, { source: '10.0.0.0/8', description: 'office' }] }),
      ),
    ).toBe(false);
  });
});
