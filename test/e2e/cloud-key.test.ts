/**
 * A wrong ClickHouse Cloud key was invisible to the operator (issue 22): the bot started, /readyz
 * answered 200 and the 401 was never logged. The key is now checked at start with one read of
 * the organization; the verdict is a sentence in the log, a field of /readyz and a metric.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { CHANNEL, KEY_ID, KEY_SECRET, useHarnesses, type Harness, type OrganizationSetup } from './harness.js';

const harness = useHarnesses({ checkCloudKey: true });

async function get(h: Harness, path: string) {
  const response = await request(`http://127.0.0.1:${h.bot.port}${path}`);
  return { status: response.statusCode, text: await response.body.text() };
}

const WRONG_SECRET = 'wrong-secret-that-must-never-be-logged';

describe('the ClickHouse Cloud API key', () => {
  it('refused: the log says so in a sentence, /readyz answers 503 and the metric shows it', async () => {
    const h = await harness({ env: { CLICKHOUSE_KEY_SECRET: WRONG_SECRET } });
    await expect.poll(() => h.logs.join('\n'), { timeout: 10_000 }).toContain('refused the API key');
    const log = h.logs.join('\n');
    expect(log).toContain(
      `ClickHouse Cloud refused the API key ${KEY_ID} (401 Unauthorized): CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET do not name a valid key`,
    );
    expect(log).not.toContain(WRONG_SECRET);

    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toMatchObject({ ok: false, store: 'ok', clickhouseKey: 'refused' });
    expect((await get(h, '/livez')).status).toBe(200);
    const metrics = (await get(h, '/metrics')).text;
    expect(metrics).toContain('clickhouse_bot_cloud_key{state="refused"} 1');
    expect(metrics).toContain('clickhouse_bot_cloud_key{state="accepted"} 0');
    expect(h.simulator.requests).toHaveLength(1);
  });

  it('accepted: one read at start, said in the log, and /readyz answers 200', async () => {
    const h = await harness({ env: { CLICKHOUSE_KEY_SECRET: KEY_SECRET } });
    expect(await h.bot.cloudKeyChecked).toBe('accepted');
    expect(h.logs.join('\n')).toContain(`ClickHouse Cloud accepts the API key ${KEY_ID} for organization`);
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toMatchObject({ ok: true, clickhouseKey: 'accepted' });
    expect((await get(h, '/metrics')).text).toContain('clickhouse_bot_cloud_key{state="accepted"} 1');
    expect(h.simulator.requests).toHaveLength(1);
  });
});

describe('the keys of several organizations (ORGANIZATIONS_FILE)', () => {
  const BILLING: OrganizationSetup = { name: 'billing', channels: { C0BILL: {} } };
  const ANALYTICS: OrganizationSetup = { name: 'analytics', channels: { [CHANNEL]: {} } };

  it('are each checked at start, and one refused leaves the bot ready for the others, listed in /readyz', async () => {
    const h = await harness({ organizations: [ANALYTICS, BILLING] });
    expect(await h.bot.cloudKeyChecked).toBe('accepted');
    const billing = h.simulators.billing;
    if (!billing) throw new Error('no billing simulator');
    // One read of each organization at start, each said in the log.
    expect(h.simulator.requests).toHaveLength(1);
    expect(billing.requests).toHaveLength(1);
    expect(h.logs.join('\n')).toContain('ClickHouse Cloud accepts the API key key-billing for organization');

    // The billing key is revoked: its next answer says so; the bot still serves analytics.
    billing.faults.failNext(1, 401);
    const read = (name: string) =>
      h.bot.organizations
        .clientOf(name)
        .getService(DEMO_IDS.ordersProd, { fresh: true })
        .catch(() => undefined);
    await read('billing');
    await expect.poll(() => h.logs.join('\n')).toContain('refused the API key key-billing');
    const ready = await get(h, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toMatchObject({
      ok: true,
      clickhouseKey: 'accepted',
      clickhouseKeys: { analytics: 'accepted', billing: 'refused' },
    });
    const metrics = (await get(h, '/metrics')).text;
    expect(metrics).toContain('clickhouse_bot_cloud_keys{organization="billing",state="refused"} 1');
    expect(metrics).toContain('clickhouse_bot_cloud_keys{organization="billing",state="accepted"} 0');
    expect(metrics).toContain('clickhouse_bot_cloud_keys{organization="analytics",state="accepted"} 1');

    // Every organization's key refused: not ready.
    h.simulator.faults.failNext(1, 401);
    await read('analytics');
    const none = await get(h, '/readyz');
    expect(none.status).toBe(503);
    expect(JSON.parse(none.text)).toMatchObject({
      ok: false,
      clickhouseKeys: { analytics: 'refused', billing: 'refused' },
    });
  });
  it("a refused key of one organization is said as that organization's, with where its key comes from", async () => {
    const h = await harness({ organizations: [ANALYTICS, BILLING] });
    expect(await h.bot.cloudKeyChecked).toBe('accepted');
    h.simulators.billing?.faults.failNext(1, 401);
    await h.bot.organizations
      .clientOf('billing')
      .getService(DEMO_IDS.ordersProd, { fresh: true })
      .catch(() => undefined);
    await expect.poll(() => h.logs.join('\n')).toContain('refused the API key key-billing');
    const said = h.logs.find((line) => line.includes('refused the API key key-billing')) ?? '';
    // Its key is read from the variables the file names, not CLICKHOUSE_KEY_ID; the bot stays ready.
    expect(said).not.toContain('CLICKHOUSE_KEY_ID');
    expect(said).toContain('billing');
    expect(said).toContain('key_id_env');
    expect(said).not.toContain('/readyz answers 503 meanwhile');
    expect((await get(h, '/readyz')).status).toBe(200);
  });

  it('a key changed by a reload is checked then, not first at a command', async () => {
    const h = await harness({ organizations: [ANALYTICS, BILLING] });
    expect(await h.bot.cloudKeyChecked).toBe('accepted');
    const file = h.organizationsFile;
    if (!file) throw new Error('no organizations file');
    file.environment['CH_BILLING_KEY_SECRET'] = 'a-new-secret-it-refuses';
    await file.write([ANALYTICS, BILLING]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    await expect.poll(() => h.logs.join('\n')).toContain('refused the API key key-billing');
    expect(JSON.parse((await get(h, '/readyz')).text)).toMatchObject({
      clickhouseKeys: { analytics: 'accepted', billing: 'refused' },
    });
    // The unchanged key is not read again.
    expect(h.simulator.requests).toHaveLength(1);
    expect(h.logs.join('\n')).not.toContain('a-new-secret-it-refuses');
  });

  it("are judged by the client of each key: after a reload with a new key, the old client's answers do not speak for it", async () => {
    const h = await harness({ organizations: [ANALYTICS, BILLING] });
    expect(await h.bot.cloudKeyChecked).toBe('accepted');
    const before = h.bot.organizations.clientOf('billing');
    const file = h.organizationsFile;
    if (!file) throw new Error('no organizations file');
    // The billing key is replaced by one ClickHouse Cloud does not know.
    file.environment['CH_BILLING_KEY_SECRET'] = 'a-new-secret-it-refuses';
    await file.write([ANALYTICS, BILLING]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    const after = h.bot.organizations.clientOf('billing');
    expect(after).not.toBe(before);
    await after.getService(DEMO_IDS.ordersProd, { fresh: true }).catch(() => undefined);
    await expect
      .poll(async () => JSON.parse((await get(h, '/readyz')).text) as unknown)
      .toMatchObject({
        clickhouseKeys: { billing: 'refused' },
      });
    // A request still finishing on the old client (the old key) is answered: the new key is still refused.
    await before.getService(DEMO_IDS.ordersProd, { fresh: true });
    expect(JSON.parse((await get(h, '/readyz')).text)).toMatchObject({
      clickhouseKeys: { analytics: 'accepted', billing: 'refused' },
    });
  });
});
