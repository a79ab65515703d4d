import { describe, expect, it } from 'vitest';
import { summaryTotals } from '../../../src/core/summary/index.js';
import { service } from '../fixtures.js';

describe('summaryTotals', () => {
  const services = [
    service({ id: 'a', state: 'running', releaseChannel: 'default', numReplicas: 3, minTotalMemoryGb: 24, maxTotalMemoryGb: 48 }),
    service({ id: 'b', state: 'running', releaseChannel: 'fast', numReplicas: 2, minTotalMemoryGb: 16, maxTotalMemoryGb: 16, ipAccessList: [{ source: '0.0.0.0/0' }] }),
    service({
      id: 'c',
      state: 'idle',
      releaseChannel: 'default',
      numReplicas: undefined,
      minReplicas: 2,
      maxReplicas: 6,
      minTotalMemoryGb: undefined,
      maxTotalMemoryGb: undefined,
      ipAccessList: [{ source: '::/0' }],
      hasTransparentDataEncryption: false,
    }),
  ];
  const totals = summaryTotals(services);

  it('counts services, by state and by release channel', () => {
    expect(totals.services).toBe(3);
    expect(totals.byState).toStrictEqual(new Map([['running', 2], ['idle', 1]]));
    expect(totals.byReleaseChannel).toStrictEqual(new Map([['default', 2], ['fast', 1]]));
  });

  it('adds replicas, as a range when a service only gives min and max', () => {
    expect(totals.replicas).toStrictEqual({ min: 7, max: 11 });
    expect(totals.servicesWithoutReplicas).toBe(0);
  });

  it('adds total memory where present, and counts the services that do not report it', () => {
    expect(totals.memoryGb).toStrictEqual({ min: 40, max: 64 });
    expect(totals.servicesWithoutMemory).toBe(1);
  });

  it('counts posture findings by code, and the services that have any', () => {
    expect(totals.findings).toStrictEqual(new Map([
      ['open-to-world', { label: 'open to the internet', count: 2 }],
      ['no-tde', { label: 'no TDE', count: 1 }],
    ]));
    expect(totals.findingCount).toBe(3);
    expect(totals.servicesWithFindings).toBe(2);
  });

  it('leaves state and channel counts empty when the records carry neither', () => {
    const bare = summaryTotals([service({ state: undefined, releaseChannel: undefined, numReplicas: undefined, minTotalMemoryGb: undefined, maxTotalMemoryGb: undefined })]);
    expect(bare.byState.size).toBe(0);
    expect(bare.byReleaseChannel.size).toBe(0);
    expect(bare.replicas).toBeUndefined();
    expect(bare.memoryGb).toBeUndefined();
    expect(bare.servicesWithoutMemory).toBe(1);
  });

  it('uses findings computed once by the caller instead of recomputing them', () => {
    const given = new Map([['a', [{ code: 'mysql-enabled' as const, label: 'MySQL endpoint on', detail: 'MySQL endpoint is enabled.' }]]]);
    expect(summaryTotals(services, given).findings).toStrictEqual(new Map([['mysql-enabled', { label: 'MySQL endpoint on', count: 1 }]]));
  });
});
