/**
 * Credits (negative totals) are listed in the spend report since they count in its total: their
 * line must not say "no change" for a new credit or "new" for a service that was a credit before,
 * nor show rounding noise as "-0.00".
 */
import { describe, expect, it } from 'vitest';
import { changeText, costBlocks, credits, moversText } from '../../../src/core/render/cost.js';
import type { CostReport } from '../../../src/core/cost/report.js';
import { noKinds } from '../../../src/core/cost/attribution.js';

const period = { from: '2026-01-08', to: '2026-01-14' };
const previousPeriod = { from: '2026-01-01', to: '2026-01-07' };

function reportOf(services: Array<{ id: string; total: number; previous: number }>): CostReport {
  const spends = services.map((s) => ({ ...s, name: s.id, isService: true, fromWarehouse: 0 }));
  return {
    period,
    previousPeriod,
    total: spends.reduce((sum, s) => sum + s.total, 0),
    previousTotal: spends.reduce((sum, s) => sum + s.previous, 0),
    kinds: noKinds(),
    services: spends,
    movers: [],
    warehouseAttributed: 0,
    days: [],
  };
}

const text = (report: CostReport) =>
  JSON.stringify(costBlocks(report, { label: 'the organization', provisional: false }));

describe('a credit in the spend report', () => {
  it('a new credit is not "no change"', () => {
    expect(changeText(-5, 0)).not.toBe('no change');
    expect(text(reportOf([{ id: 'refunded', total: -5, previous: 0 }]))).not.toContain('no change');
  });

  it('a service that was a credit before and spends now is not "new"', () => {
    expect(changeText(10, -5)).not.toBe('new');
  });

  it('a credit that grew or shrank is not "no change"', () => {
    expect(changeText(-50, -5)).not.toBe('no change');
    expect(changeText(-5, -50)).not.toBe('no change');
    expect(changeText(-5, -5)).toBe('no change');
  });

  it('rounding noise is not shown as a negative zero', () => {
    expect(credits(-0.001)).toBe('0.00');
    expect(credits(-5)).toBe('-5.00');
  });
  it('a mover that was a credit says its difference once', () => {
    const report = reportOf([{ id: 'refunded', total: -50, previous: -5 }]);
    const movers = moversText({ movers: report.services });
    expect(movers).toContain('−45.00 CHC');
    expect(movers.split('45.00')).toHaveLength(2);
  });
});
