import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/cloud/client.js';
import { DEMO_IDS, DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG_ID } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import type { UsageCostResult } from '../../src/simulator/cost.js';
import { call, expectSuccess, startDemo } from './helpers.js';

const NOW = Date.parse('2026-05-20T12:00:00Z');
const costPath = `/v1/organizations/${DEMO_ORG_ID}/usageCost`;
const query = (from: string, to: string, ...filters: string[]) => {
  const params = new URLSearchParams({ from_date: from, to_date: to });
  for (const filter of filters) params.append('filter', filter);
  return params;
};

let sim: CloudSimulator;
beforeAll(async () => {
  sim = await startDemo({ now: () => NOW });
});
afterAll(async () => {
  await sim.close();
});

describe('GET …/usageCost in the simulator', () => {
  it('answers the same figures every time, a row per service and one per shared warehouse, locked but for the last two days', async () => {
    const first = expectSuccess<UsageCostResult>(
      await call(sim, 'GET', costPath, { query: query('2026-05-17', '2026-05-20') }),
    );
    const again = expectSuccess<UsageCostResult>(
      await call(sim, 'GET', costPath, { query: query('2026-05-17', '2026-05-20') }),
    );
    expect(again).toEqual(first);
    const locked = new Map(first.costs.map((row) => [row.date, row.locked]));
    expect([...locked]).toEqual([
      ['2026-05-17', true],
      ['2026-05-18', true],
      ['2026-05-19', false],
      ['2026-05-20', false],
    ]);
    const warehouse = first.costs.filter((row) => row.entityType === 'datawarehouse' && row.date === '2026-05-17');
    expect(warehouse.map((row) => row.entityId)).toEqual([DEMO_IDS.ordersProd]);
    const ordersProd = first.costs.find((row) => row.entityId === DEMO_IDS.ordersProd && row.date === '2026-05-17');
    expect(ordersProd?.metrics['storageCHC']).toBe(0);
    expect(first.grandTotalCHC).toBeCloseTo(
      first.costs.reduce((sum, row) => sum + row.totalCHC, 0),
      3,
    );
    // Today so far costs less than a whole day.
    const today = first.costs.find((row) => row.entityId === DEMO_IDS.eventsProd && row.date === '2026-05-20');
    const yesterday = first.costs.find((row) => row.entityId === DEMO_IDS.eventsProd && row.date === '2026-05-19');
    expect(today?.totalCHC).toBeLessThan(yesterday?.totalCHC ?? 0);
  });

  it('compute follows memory × replicas: scaling a service up raises its compute', async () => {
    const read = async () =>
      expectSuccess<UsageCostResult>(
        await call(sim, 'GET', costPath, { query: query('2026-05-01', '2026-05-01') }),
      ).costs.find((row) => row.entityId === DEMO_IDS.eventsProd)?.metrics['computeCHC'] ?? 0;
    const before = await read();
    const record = sim.service(DEMO_IDS.eventsProd);
    sim.changeOutsideBot(DEMO_IDS.eventsProd, { numReplicas: Number(record?.['numReplicas'] ?? 3) * 2 });
    expect(await read()).toBeCloseTo(before * 2, 2);
    sim.changeOutsideBot(DEMO_IDS.eventsProd, { numReplicas: record?.['numReplicas'] });
  });

  it('honours tag filters; a stopped service costs no compute', async () => {
    const prod = expectSuccess<UsageCostResult>(
      await call(sim, 'GET', costPath, { query: query('2026-05-01', '2026-05-01', 'tag:env=prod') }),
    );
    expect(prod.costs.some((row) => row.entityId === DEMO_IDS.sandboxDev)).toBe(false);
    expect(prod.costs.some((row) => row.entityId === DEMO_IDS.eventsProd)).toBe(true);
    const all = expectSuccess<UsageCostResult>(
      await call(sim, 'GET', costPath, { query: query('2026-05-01', '2026-05-01') }),
    );
    expect(all.costs.find((row) => row.entityId === DEMO_IDS.mlDev)?.metrics['computeCHC']).toBe(0);
  });

  it.each([
    [query('2026-04-01', '2026-05-02'), /the date range must not exceed 31 days \(got 32\)/],
    [query('2026-05-02', '2026-05-01'), /to_date must not be before from_date/],
    [new URLSearchParams({ to_date: '2026-05-01' }), /query.from_date: 'is required'/],
    [query('2026-02-30', '2026-03-01'), /must match format "date"/],
    [query('2026-05-01', '2026-05-01', 'env=prod'), /is not a tag filter/],
  ])('refuses %s with the API 400 envelope', async (params, message) => {
    const response = await call(sim, 'GET', costPath, { query: params });
    expect(response.status).toBe(400);
    const body = response.body as { status: number; error: string; requestId: string };
    expect(body.status).toBe(400);
    expect(body.error).toMatch(/^BAD_REQUEST: /);
    expect(body.error).toMatch(message);
  });

  it('the client reads it, parses the rows and refuses more than 31 days before sending', async () => {
    const client = new CloudClient({
      baseUrl: sim.url,
      keyId: DEMO_KEY_ID,
      keySecret: DEMO_KEY_SECRET,
      orgId: DEMO_ORG_ID,
      throttle: false,
    });
    try {
      const answer = await client.usageCost({ from: '2026-05-01', to: '2026-05-31' }, ['tag:team=data']);
      expect(answer.rows.length).toBeGreaterThan(0);
      expect(answer.rows.every((row) => row.date >= '2026-05-01' && row.date <= '2026-05-20')).toBe(true);
      await expect(client.usageCost({ from: '2026-04-01', to: '2026-05-02' })).rejects.toThrow(/1 to 31 days, not 32/);
      expect(client.requestsSent).toBe(1);
    } finally {
      await client.close();
    }
  });
});
