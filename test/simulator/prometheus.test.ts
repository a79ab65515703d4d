/** GET …/services/{serviceId}/prometheus over real HTTP: text exposition, labels, load, idle services. */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS, DEMO_ORG_ID } from '../../src/simulator/seed.js';
import type { CloudSimulator } from '../../src/simulator/server.js';
import { call, expectError, getText, servicePath, demoStarter } from './helpers.js';

const AT = Date.parse('2026-11-28T13:20:00Z');
const FILTERED = new URLSearchParams({ filtered_metrics: 'true' });
const GIB = 1024 ** 3;

const start = demoStarter(AT);

const scrape = (s: CloudSimulator, id: string, query = FILTERED) => getText(s, `${servicePath(id)}/prometheus`, query);

/** The sample lines of one metric. */
const samples = (text: string, name: string): string[] =>
  text.split('\n').filter((line) => line.startsWith(`${name}{`));

const valueOf = (line: string): number => Number(line.slice(line.lastIndexOf(' ') + 1));

describe('prometheus', () => {
  it('answers a running service with text, ServiceInfo and per-replica gauges and counters, all labelled', async () => {
    const s = await start();
    const { status, contentType, text } = await scrape(s, DEMO_IDS.ordersProd);
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/plain/);
    const base = `clickhouse_org="${DEMO_ORG_ID}",clickhouse_service="${DEMO_IDS.ordersProd}",clickhouse_service_name="orders-prod"`;
    expect(text).toContain(
      `ClickHouse_ServiceInfo{${base},clickhouse_cluster_status="running",clickhouse_version="25.6.2.5983",scrape="full"} 1\n`,
    );
    expect(text).toContain('# TYPE ClickHouseMetrics_Query gauge\n');
    expect(text).toContain('# HELP ClickHouseMetrics_MemoryTracking ');
    expect(text).toContain('# TYPE ClickHouseProfileEvents_Query counter\n');
    const queries = samples(text, 'ClickHouseMetrics_Query');
    expect(queries).toHaveLength(3);
    for (const line of queries)
      expect(line).toMatch(new RegExp(`^ClickHouseMetrics_Query\\{${base},hostname="[^"]+"\\} \\d+$`));
    expect(new Set(queries.map((line) => /hostname="([^"]+)"/.exec(line)?.[1])).size).toBe(3);
    for (const line of text
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('#')))
      expect(line).toContain(base);
  });

  it('reports a load set by the test: queries spread over replicas, memory per replica', async () => {
    const s = await start();
    s.setLoad(DEMO_IDS.ordersProd, { queries: 7, memoryBytesPerReplica: 5 * GIB });
    const { text } = await scrape(s, DEMO_IDS.ordersProd);
    expect(
      samples(text, 'ClickHouseMetrics_Query')
        .map(valueOf)
        .reduce((a, b) => a + b, 0),
    ).toBe(7);
    expect(samples(text, 'ClickHouseMetrics_MemoryTracking').map(valueOf)).toStrictEqual([5 * GIB, 5 * GIB, 5 * GIB]);
  });

  it('is deterministic for the same moment, and its counters never go back as the clock moves', async () => {
    const clock = { at: AT };
    const s = await start(clock);
    const first = (await scrape(s, DEMO_IDS.eventsProd)).text;
    expect((await scrape(s, DEMO_IDS.eventsProd)).text).toBe(first);
    clock.at += 3_600_000;
    const later = (await scrape(s, DEMO_IDS.eventsProd)).text;
    const total = (text: string) =>
      samples(text, 'ClickHouseProfileEvents_Query')
        .map(valueOf)
        .reduce((a, b) => a + b, 0);
    expect(total(later)).toBeGreaterThan(total(first));
  });

  it('answers an idle or stopped service with ServiceInfo alone, and does not wake it', async () => {
    const s = await start();
    for (const [id, state] of [
      [DEMO_IDS.analyticsStaging, 'idle'],
      [DEMO_IDS.ordersStaging, 'stopped'],
    ] as const) {
      const { status, text } = await scrape(s, id);
      expect(status).toBe(200);
      expect(text).toContain(`clickhouse_cluster_status="${state}"`);
      expect(text.split('\n').filter((line) => line !== '' && !line.startsWith('#'))).toHaveLength(1);
      expect(s.service(id)?.state).toBe(state);
    }
  });

  it('marks a degraded service partial, answered by fewer replicas', async () => {
    const s = await start();
    const { text } = await scrape(s, DEMO_IDS.billingProd);
    expect(text).toMatch(/clickhouse_cluster_status="degraded".*scrape="partial"\} 1/);
    expect(samples(text, 'ClickHouseMetrics_Query').length).toBeGreaterThan(0);
  });

  it('serves more series unfiltered than filtered', async () => {
    const s = await start();
    const filtered = (await scrape(s, DEMO_IDS.ordersProd)).text;
    const full = (await scrape(s, DEMO_IDS.ordersProd, new URLSearchParams())).text;
    expect(full.length).toBeGreaterThan(filtered.length);
  });

  it('refuses a filtered_metrics that is not a boolean, and an unknown service, with the JSON envelope', async () => {
    const s = await start();
    const path = `${servicePath(DEMO_IDS.ordersProd)}/prometheus`;
    const bad = await call(s, 'GET', path, { query: new URLSearchParams({ filtered_metrics: 'yes' }) });
    expect(expectError(bad, 400, 'BAD_REQUEST')).toContain("query.filtered_metrics: 'must be boolean'");
    const missing = await call(s, 'GET', `${servicePath('5e000000-0000-4000-8000-0000000000ff')}/prometheus`);
    expectError(missing, 404, 'NOT_FOUND');
  });
});
