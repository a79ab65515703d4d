/**
 * The operator's view of a running bot (HTTP mode): /metrics moving with real traffic, on PORT or
 * on METRICS_PORT or off, the probes through a Redis outage, and JSON logs of a whole flow.
 */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { ACTION_APPROVE, ACTION_REJECT } from '../../src/core/render/change.js';
import { createLogger } from '../../src/log.js';
import { startRedisServer } from '../reliability/processes.js';
import {
  answerText,
  CHANNEL,
  KEY_SECRET,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';
import { anyString, stringMatching } from '../support/matchers.js';

const harness = useHarnesses();

async function get(port: number, path: string, host = '127.0.0.1', headers: Record<string, string> = {}) {
  const response = await request(`http://${host}:${port}${path}`, { headers });
  return {
    status: response.statusCode,
    text: await response.body.text(),
    type: String(response.headers['content-type']),
  };
}

/** The value of one sample line of the Prometheus text format, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

async function scrape(h: Harness, port = h.bot.port): Promise<string> {
  const { status, text, type } = await get(port, '/metrics');
  expect(status).toBe(200);
  expect(type).toContain('text/plain');
  return text;
}

describe('GET /metrics', () => {
  it('counts commands, change request outcomes, Cloud requests, acks and pending requests as they happen', async () => {
    const h = await harness();
    const before = await scrape(h);
    expect(sample(before, 'clickhouse_bot_pending_change_requests')).toBe(0);

    await answerText(h, await h.command('list'));
    await answerText(h, await h.command('list tag:env=prod'));
    await answerText(h, await h.command('no-such-command'));
    const applied = await requestChange(h, 'ip add orders-prod 10.3.0.0/16 metrics');
    const rejected = await requestChange(h, 'rename metrics-prod metrics-other');
    expect(sample(await scrape(h), 'clickhouse_bot_pending_change_requests')).toBe(2);
    await h.click(ACTION_APPROVE, applied.id, USERS.approver);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(applied.id) && textOf(a.blocks).includes('Applied'),
    );
    await h.click(ACTION_REJECT, rejected.id, USERS.approver);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(rejected.id) && textOf(a.blocks).includes('Rejected'),
    );
    await h.bot.changeRequests.drain();

    const after = await scrape(h);
    const exactly = {
      'clickhouse_bot_commands_total{command="list"}': 2,
      'clickhouse_bot_commands_total{command="unknown"}': 1,
      'clickhouse_bot_commands_total{command="ip add"}': 1,
      'clickhouse_bot_commands_total{command="rename"}': 1,
      'clickhouse_bot_change_requests_total{outcome="requested"}': 2,
      'clickhouse_bot_change_requests_total{outcome="applied"}': 1,
      'clickhouse_bot_change_requests_total{outcome="rejected"}': 1,
      clickhouse_bot_pending_change_requests: 0,
      'clickhouse_bot_cloud_requests_total{method="PATCH",status="200"}': 1,
      // Every command and click was acknowledged once.
      clickhouse_bot_ack_seconds_count: 7,
    };
    expect(Object.fromEntries(Object.keys(exactly).map((series) => [series, sample(after, series)]))).toEqual(exactly);
    expect(sample(after, 'clickhouse_bot_cloud_requests_total{method="GET",status="200"}')).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'clickhouse_bot_cloud_request_seconds_count{method="GET"}')).toBeGreaterThanOrEqual(2);
    // No service, user, channel or request id became a label.
    for (const value of [applied.id, USERS.requester, USERS.approver, CHANNEL, 'orders-prod'])
      expect(after).not.toContain(value);
    expect(after).not.toContain(KEY_SECRET);
  });

  it('counts the throttle queue, Slack API errors and failed summaries', async () => {
    // No read cache: every read needs a request of its own (filters never do: they apply locally).
    const h = await harness({
      env: { CLICKHOUSE_CACHE_SECONDS: '0' },
      cloudClient: { throttle: { limit: 1, windowMs: 60_000 }, rateLimitBudgetMs: 100 },
      // The summary's spend and keys reads wait in the throttle too: the summary posts without them soon.
      summarySpendWaitMs: 50,
      summaryKeysWaitMs: 50,
    });
    h.slack.failingChannels.set('C0GONE', 'channel_not_found');
    await h.command('summary', USERS.requester, 'C0GONE');
    // The summary is posted after the answer: its outcome is counted when the post has failed.
    await expect.poll(async () => sample(await scrape(h), 'clickhouse_bot_summaries_total{result="failed"}')).toBe(1);
    expect(
      sample(
        await scrape(h),
        'clickhouse_bot_slack_api_errors_total{method="chat.postMessage",error="channel_not_found"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    // The throttle admits one request a minute and the summary used it: the next read waits in its queue.
    await h.command('list tag:env=staging');
    // Waiting: the list, and the summary's spend and keys reads (they go on after the summary: the
    // spend fills the cache, the keys read is joined by the next summary).
    await expect.poll(async () => sample(await scrape(h), 'clickhouse_bot_throttle_queue_length')).toBe(3);
  });

  it('counts a 429 from the API', async () => {
    const h = await harness({ cloudClient: { rateLimitBudgetMs: 5_000 } });
    h.simulator.faults.rateLimitNext(1, 0.05);
    await answerText(h, await h.command('list'));
    const text = await scrape(h);
    expect(sample(text, 'clickhouse_bot_cloud_rate_limited_total')).toBe(1);
    expect(sample(text, 'clickhouse_bot_cloud_requests_total{method="GET",status="429"}')).toBe(1);
    expect(sample(text, 'clickhouse_bot_cloud_requests_total{method="GET",status="200"}')).toBe(1);
  });

  it('moves to METRICS_PORT when set, and is gone with METRICS=off', async () => {
    const own = await harness({ env: { METRICS_PORT: '0' } });
    expect(own.bot.metricsPort).toBeGreaterThan(0);
    expect(own.bot.metricsPort).not.toBe(own.bot.port);
    expect(await scrape(own, own.bot.metricsPort)).toContain('clickhouse_bot_commands_total');
    expect((await get(own.bot.port, '/metrics')).status).toBe(404);

    const off = await harness({ env: { METRICS: 'off' } });
    expect((await get(off.bot.port, '/metrics')).status).toBe(404);
    expect(off.bot.metrics).toBeUndefined();
    expect(await answerText(off, await off.command('list'))).toContain('services');
  });
});

describe('where the bot listens', () => {
  // The whole of 127.0.0.0/8 is this machine: an address other than 127.0.0.1 shows the binding.
  it('binds PORT to HOST and the metrics listener to METRICS_HOST, nowhere else', async () => {
    const h = await harness({
      env: { HOST: '127.0.0.2', METRICS_PORT: '0', METRICS_HOST: '127.0.0.3' },
    });
    // Probed on a loopback address no test binds: a listener on every address (0.0.0.0) would answer
    // there too, and another test's bot on 127.0.0.1 with the same port number cannot.
    const elsewhere = '127.0.0.9';
    expect((await get(h.bot.port, '/livez', '127.0.0.2')).status).toBe(200);
    await expect(get(h.bot.port, '/livez', elsewhere)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    const port = h.bot.metricsPort ?? 0;
    expect((await get(port, '/metrics', '127.0.0.3')).status).toBe(200);
    await expect(get(port, '/metrics', elsewhere)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('answers /metrics only with the bearer token when METRICS_TOKEN is set, on PORT or METRICS_PORT', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const settings: Array<Record<string, string>> = [
      { METRICS_TOKEN: token },
      { METRICS_TOKEN: token, METRICS_PORT: '0' },
    ];
    for (const env of settings) {
      const h = await harness({ env });
      const port = h.bot.metricsPort ?? h.bot.port;
      const refused = await get(port, '/metrics');
      expect(refused.status).toBe(401);
      expect(refused.text).not.toContain('clickhouse_bot');
      expect(JSON.parse(refused.text)).toEqual({
        ok: false,
        error: 'GET /metrics needs the header Authorization: Bearer <METRICS_TOKEN>',
      });
      expect(
        (await get(port, '/metrics', '127.0.0.1', { authorization: 'Bearer wrong-token-0123456789' })).status,
      ).toBe(401);
      const allowed = await get(port, '/metrics', '127.0.0.1', { authorization: `Bearer ${token}` });
      expect(allowed.status).toBe(200);
      expect(allowed.text).toContain('clickhouse_bot_commands_total');
      // The probes stay open to the orchestrator.
      expect((await get(h.bot.port, '/livez')).status).toBe(200);
      expect(h.logs.join('\n')).not.toContain(token);
    }
  });
});

describe('probes', () => {
  it('keeps /livez at 200 through a Redis outage while /readyz and /healthz say 503', async () => {
    const redis = await startRedisServer();
    try {
      const h = await harness({ redisUrl: redis.url });
      expect((await get(h.bot.port, '/livez')).status).toBe(200);
      expect(JSON.parse((await get(h.bot.port, '/readyz')).text)).toMatchObject({ ok: true, store: 'ok' });
      await redis.kill();
      expect((await get(h.bot.port, '/livez')).status).toBe(200);
      const ready = await get(h.bot.port, '/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text)).toMatchObject({ ok: false, store: 'unreachable' });
      expect((await get(h.bot.port, '/healthz')).status).toBe(503);
      await redis.restart();
      await expect.poll(async () => (await get(h.bot.port, '/readyz')).status, { timeout: 10_000 }).toBe(200);
    } finally {
      await redis.stop();
    }
  });
});

describe('LOG_FORMAT=json', () => {
  it('logs a whole flow as JSON lines carrying the change request, user, service and API request ids, with no secret', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', format: 'json', sink: (line) => lines.push(line) });
    const h = await harness({ logger });
    const { id } = await requestChange(h, 'ip add orders-prod 10.4.0.0/16 json logs');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    await h.bot.changeRequests.drain();

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const entry of entries)
      expect(entry).toMatchObject({ time: anyString(), level: anyString(), msg: anyString() });
    const applied = entries.find((e) => e.changeRequestId === id && e.outcome === 'applied');
    expect(applied).toMatchObject({
      level: 'info',
      userId: USERS.approver,
      channelId: CHANNEL,
      serviceId: anyString(),
      apiRequestId: stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(entries.find((e) => e.changeRequestId === id && e.outcome === 'requested')).toMatchObject({
      userId: USERS.requester,
    });
    const joined = lines.join('\n');
    for (const secret of [KEY_SECRET, 'xoxb-test-token-never-logged']) expect(joined).not.toContain(secret);
  });
});
