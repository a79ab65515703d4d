import { describe, expect, it } from 'vitest';
import { attribute } from '../../../src/core/cost/attribution.js';
import { costReport, dailySpendSeries } from '../../../src/core/cost/report.js';
import { CostRowSchema, parseCostRows, type CostRow } from '../../../src/core/cost/schema.js';

const row = (fields: Partial<CostRow> & { date: string; entityId: string }): CostRow =>
  CostRowSchema.parse({ entityType: 'service', locked: true, ...fields });

const service = (date: string, id: string, compute: number, warehouse?: string) =>
  row({
    date,
    entityId: id,
    entityName: id,
    serviceId: id,
    dataWarehouseId: warehouse ?? id,
    totalCHC: compute,
    metrics: { computeCHC: compute } as CostRow['metrics'],
  });

describe('attribution', () => {
  it("splits a warehouse's storage evenly among its services of that day and says how much", () => {
    const rows = [
      service('2026-01-01', 'a', 10, 'w'),
      service('2026-01-01', 'b', 4, 'w'),
      row({
        date: '2026-01-01',
        entityType: 'datawarehouse',
        entityId: 'w',
        dataWarehouseId: 'w',
        totalCHC: 6,
        metrics: { storageCHC: 6 } as CostRow['metrics'],
      }),
    ];
    const days = attribute(rows);
    expect(days.map((d) => [d.id, d.total, d.fromWarehouse, d.kinds.storage])).toEqual([
      ['a', 13, 3, 3],
      ['b', 7, 3, 3],
    ]);
  });

  it('gives a ClickPipe to its service and keeps what has no service as its own entity', () => {
    const rows = [
      service('2026-01-01', 'a', 1),
      row({ date: '2026-01-01', entityType: 'clickpipe', entityId: 'p', serviceId: 'a', totalCHC: 2 }),
      row({ date: '2026-01-01', entityType: 'clickpipe', entityId: 'q', entityName: 'orphan pipe', totalCHC: 5 }),
    ];
    const days = attribute(rows);
    expect(days.map((d) => [d.id, d.total, d.isService])).toEqual([
      ['a', 3, true],
      ['q', 5, false],
    ]);
    // A pipe's credits beyond the known metrics count as "other", never lost.
    expect(days[1]?.kinds.other).toBe(5);
  });

  it('drops a row it cannot read and keeps the rest', () => {
    const parsed = parseCostRows([
      { date: 'yesterday', entityId: 'x' },
      { date: '2026-01-01', entityId: 'y', totalCHC: 'n/a' },
    ]);
    expect(parsed.skipped).toBe(1);
    expect(parsed.rows[0]?.totalCHC).toBe(0);
  });
});

describe('the report', () => {
  const period = { from: '2026-01-08', to: '2026-01-14' };
  const previous = { from: '2026-01-01', to: '2026-01-07' };
  const rows = [
    ...['01', '02', '03', '04', '05', '06', '07'].map((d) => service(`2026-01-${d}`, 'a', 10)),
    ...['08', '09', '10', '11', '12', '13', '14'].map((d) => service(`2026-01-${d}`, 'a', 20)),
    ...['08', '09', '10', '11', '12', '13', '14'].map((d) => service(`2026-01-${d}`, 'b', 1)),
  ];

  it('totals the period and the one before, per service, by kind, with the top movers', () => {
    const report = costReport(rows, period, previous);
    expect(report.total).toBe(147);
    expect(report.previousTotal).toBe(70);
    expect(report.kinds.compute).toBe(147);
    expect(report.services.map((s) => [s.id, s.total, s.previous])).toEqual([
      ['a', 140, 70],
      ['b', 7, 0],
    ]);
    expect(report.movers.map((s) => s.id)).toEqual(['a', 'b']);
  });

  it('lists a service whose period is a credit (negative), so the services add up to the total', () => {
    const credited = [...rows, service('2026-01-10', 'c', -5)];
    const report = costReport(credited, period, previous);
    expect(report.total).toBe(142);
    expect(report.services.map((s) => [s.id, s.total])).toEqual([
      ['a', 140],
      ['b', 7],
      ['c', -5],
    ]);
    expect(report.services.reduce((sum, s) => sum + s.total, 0)).toBe(report.total);
  });

  it('counts only what the filter keeps', () => {
    const report = costReport(rows, period, previous, (e) => e.id === 'b');
    expect(report.total).toBe(7);
    expect(report.services).toHaveLength(1);
  });

  it('charts the top services, the rest as other, with totals that add up to the report', () => {
    const many = Array.from({ length: 12 }, (_, i) => service('2026-01-08', `s${i}`, i + 1));
    const report = costReport(many, period, previous);
    const chart = dailySpendSeries(report, 8);
    expect(chart.days).toHaveLength(7);
    expect(chart.series.map((s) => s.name)).toEqual(['s11', 's10', 's9', 's8', 's7', 's6', 's5', 'other']);
    expect(chart.series.at(-1)?.total).toBe(1 + 2 + 3 + 4 + 5);
    expect(chart.series.reduce((sum, s) => sum + s.total, 0)).toBe(report.total);
  });
  it('charts one service split by kind (compute, storage, backup, transfer), as its text is (issue 41)', () => {
    const spent = (date: string, metrics: Partial<CostRow['metrics']>, total: number) =>
      row({
        date,
        entityId: 'a',
        entityName: 'orders',
        serviceId: 'a',
        dataWarehouseId: 'a',
        totalCHC: total,
        metrics: metrics as CostRow['metrics'],
      });
    const rows = [
      spent('2026-01-08', { computeCHC: 10, storageCHC: 2, backupCHC: 1, dataTransferCHC: 0.5 }, 13.5),
      spent('2026-01-09', { computeCHC: 6, storageCHC: 2, backupCHC: 0, dataTransferCHC: 0 }, 8),
    ];
    const report = costReport(rows, period, previous);
    const chart = dailySpendSeries(report, 8);
    expect(chart.splitBy).toBe('kind');
    expect(chart.series.map((s) => [s.name, s.total])).toEqual([
      ['compute', 16],
      ['storage', 4],
      ['backup', 1],
      ['transfer', 0.5],
    ]);
    expect(chart.series[0]?.values.slice(0, 2)).toEqual([10, 6]);
    expect(chart.series.reduce((sum, s) => sum + s.total, 0)).toBe(report.total);
    // Two services: split by service again.
    const two = dailySpendSeries(costReport([...rows, service('2026-01-08', 'b', 3)], period, previous), 8);
    expect(two).toMatchObject({ splitBy: 'service' });
    expect(two.series.map((s) => s.name)).toEqual(['orders', 'b']);
  });
  it('charts a credit as its own series below zero: it neither hides the other services nor leaves the total', () => {
    const credited = [service('2026-01-08', 'a', 140), service('2026-01-09', 'b', 7), service('2026-01-10', 'c', -5)];
    const report = costReport(credited, period, previous);
    const chart = dailySpendSeries(report, 8);
    expect(chart.series.map((s) => [s.name, s.total])).toEqual([
      ['a', 140],
      ['b', 7],
      ['credits', -5],
    ]);
    expect(chart.series.reduce((sum, s) => sum + s.total, 0)).toBe(report.total);
    // With more services than shown: the small ones stay in "other", not netted against the credit.
    const many = [
      ...Array.from({ length: 12 }, (_, i) => service('2026-01-08', `s${i}`, i + 1)),
      service('2026-01-09', 'c', -20),
    ];
    const more = dailySpendSeries(costReport(many, period, previous), 8);
    expect(more.series.find((s) => s.name === 'other')?.total).toBe(1 + 2 + 3 + 4 + 5);
    expect(more.series.at(-1)).toMatchObject({ name: 'credits', total: -20 });
  });
});
