/**
 * Spend end to end: the real bot over signed HTTP, the simulator's usageCost, the fake Slack
 * (files.uploadV2's three calls) and real Redis shared by two replicas.
 */
import { describe, expect, it } from 'vitest';
import { CHANNEL, textOf, useHarnesses, USERS } from './harness.js';
import { pngSize } from '../support/png.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';

const harness = useHarnesses();

const usageCostCalls = (h: { simulator: { requests: Array<{ path: string }> } }) =>
  h.simulator.requests.filter((r) => r.path.endsWith('/usageCost')).length;

describe('/clickhouse cost over HTTP', () => {
  it('posts the report, shares the chart in its thread, and a second replica reads nothing again', async () => {
    const first = await harness();
    const ack = await first.command('cost tag:env=prod');
    expect(ack.status).toBe(200);
    const report = await first.slack.waitFor('chat.postMessage', (a) =>
      String(a.text).startsWith('Spend of services tagged env=prod'),
    );
    const shared = await first.slack.waitFor('files.completeUploadExternal');
    expect(shared.args.channel_id).toBe(CHANNEL);
    const [file] = [...first.slack.files.values()];
    expect(file?.completed).toBe(true);
    expect(pngSize(file?.bytes ?? new Uint8Array())).toEqual({ width: 900, height: 420 });
    expect(file?.altText).toMatch(/^Daily spend of services tagged env=prod \(CHC\), .* total [\d,.]+ CHC\.$/);
    // In the report's thread: the message the chart arrived with carries the report's ts.
    const posted = first.slack.messages.find((m) => m.files?.some((f) => f.id === file?.id));
    const reportTs = first.slack.messages.find((m) => m.text === report.args.text)?.ts;
    expect(posted?.threadTs).toBe(reportTs);
    // The served image is the uploaded one.
    const served = await fetch(`${first.slack.url}${posted?.files?.[0]?.url ?? ''}`);
    expect(Buffer.from(await served.arrayBuffer()).equals(file?.bytes ?? Buffer.alloc(0))).toBe(true);
    // 7 days and the 7 before: one call of 14 days.
    expect(usageCostCalls(first)).toBe(1);

    const second = await harness({ keyPrefix: first.keyPrefix, simulator: first.simulator, slack: first.slack });
    await second.command('cost orders-prod', USERS.approver);
    await first.slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith('Spend of orders-prod'));
    expect(usageCostCalls(first)).toBe(1);
    const text = textOf(
      first.slack.callsOf('chat.postMessage', (a) => String(a.text).startsWith('Spend of orders-prod'))[0]?.args ?? {},
    );
    expect(text).toContain(DEMO_IDS.ordersProd);
    expect(text).toMatch(/shared data warehouse storage, split evenly/);
  });

  it('refuses an unknown service and a period it does not offer, in sentences', async () => {
    const h = await harness();
    const unknown = await h.command('cost no-such-service');
    const said = await h.slack.waitFor('response_url', (a) => a.responseUrlId === unknown.responseUrlId);
    expect(textOf(said.args)).toMatch(/no-such-service/);
    const tooLong = await h.command('cost 180d');
    const refused = await h.slack.waitFor('response_url', (a) => a.responseUrlId === tooLong.responseUrlId);
    expect(textOf(refused.args)).toMatch(/at most 90 days/);
    expect(usageCostCalls(h)).toBe(0);
  });
});

describe('COST_ALERTS over HTTP', () => {
  it('two replicas post each alert once', async () => {
    // Every demo service that spent over 20 CHC yesterday alerts: how many the simulator decides.
    const env = { COST_ALERTS: 'C0COSTS', COST_ALERT_ABOVE_CHC: '20' };
    const first = await harness({ env });
    await first.bot.costAlertsLookedAtStart;
    const second = await harness({ env, keyPrefix: first.keyPrefix, simulator: first.simulator, slack: first.slack });
    await second.bot.costAlertsLookedAtStart;
    const alerts = first.slack
      .callsOf('chat.postMessage', (a) => a.channel === 'C0COSTS')
      .map((c) => String(c.args.text));
    expect(alerts.length).toBeGreaterThan(0);
    const services = alerts.map((text) => /`([0-9a-f]{8})`/.exec(text)?.[1]);
    expect(new Set(services).size).toBe(alerts.length);
    expect(alerts.every((text) => /above the alert threshold of 20\.00 CHC/.test(text))).toBe(true);
    // The second replica did look (from the shared cache, no API call) and found every alert claimed.
    expect([...first.logs, ...second.logs].join('\n')).not.toMatch(/services whose spend jumped failed/);
    expect(usageCostCalls(first)).toBe(1);
  });
});

describe('a key that may not read usage costs', () => {
  it('gets a sentence, and the bot stays ready', async () => {
    const h = await harness();
    h.simulator.faults.failNext(1, 403);
    const ack = await h.command('cost');
    const said = await h.slack.waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId);
    expect(textOf(said.args)).toMatch(
      /may not read usage costs \(ClickHouse Cloud answered 403\)\. Whoever runs the bot/,
    );
    expect(h.bot.cloudKey()).not.toBe('refused');
  });
});
