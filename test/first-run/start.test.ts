/**
 * A first run as a new user makes it: the bot started with settings that cannot work says what is
 * wrong and what to do, in one sentence, instead of library jargon.
 */
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startBot } from '../../src/bot.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { SlackStandIn } from '../../src/playground/slack-stand-in.js';
import { OUTAGE_LOG_INTERVAL_MS, watchOutages } from '../../src/store/redis/open.js';
import { CloudSimulator } from '../../src/simulator/server.js';
import { DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';

/** A port nothing listens on: bound once to learn a free number, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function quietLogger(lines: string[]) {
  return createLogger({ level: 'info', sink: (line: string) => lines.push(line) });
}

async function slackStandIn(): Promise<SlackStandIn> {
  const slack = await SlackStandIn.start({});
  cleanups.push(() => slack.close());
  return slack;
}

describe('starting the bot', () => {
  it('tells an unreachable Slack (with the URL tried) from a refused token', async () => {
    const port = await closedPort();
    const apiUrl = `http://127.0.0.1:${port}/api/`;
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-first-run',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_API_URL: apiUrl,
      PORT: '0',
    });
    const failure = await startBot(config, { logger: quietLogger([]) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(failure)).toContain(`Could not reach Slack at ${apiUrl} (ECONNREFUSED)`);
    expect(String(failure)).not.toContain('did not accept');
    expect(String(failure)).not.toContain('refused SLACK_BOT_TOKEN');
  });

  it('says Redis at HOST:PORT is not answering, and how to run without it', async () => {
    const slack = await slackStandIn();
    const port = await closedPort();
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-first-run',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      REDIS_URL: `redis://127.0.0.1:${port}`,
    });
    const lines: string[] = [];
    const failure = await startBot(config, { logger: quietLogger(lines) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const message = String(failure);
    expect(message).toContain(`Redis at 127.0.0.1:${port} is not answering`);
    expect(message).toContain('leave REDIS_URL unset');
    expect(message).not.toContain('maxRetriesPerRequest');
  });

  it('logs the API URL and organization it uses, never the secret', async () => {
    const slack = await slackStandIn();
    const simulator = await CloudSimulator.start({
      keyId: 'firstRunKey',
      keySecret: 'first-run-secret-value',
      orgId: DEMO_ORG_ID,
      services: demoServices(),
    });
    cleanups.push(() => simulator.close());
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-first-run',
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      CLICKHOUSE_API_URL: simulator.url,
      CLICKHOUSE_KEY_ID: 'firstRunKey',
      CLICKHOUSE_KEY_SECRET: 'first-run-secret-value',
      CLICKHOUSE_ORG_ID: DEMO_ORG_ID,
    });
    const lines: string[] = [];
    const bot = await startBot(config, { logger: quietLogger(lines) });
    cleanups.push(() => bot.stop());
    const log = lines.join('\n');
    expect(log).toContain(`ClickHouse Cloud API ${simulator.url}, organization ${DEMO_ORG_ID}`);
    expect(log).not.toContain('first-run-secret-value');
  });
});

describe('while Redis is down', () => {
  it('logs the first error, then once a minute, and says when Redis is back', () => {
    const redis = new EventEmitter();
    let now = 1_000_000;
    const lines: string[] = [];
    watchOutages(
      redis,
      'Redis at 127.0.0.1:6390',
      { info: (line) => lines.push(`INFO ${line}`), error: (line) => lines.push(`ERROR ${line}`) },
      () => now,
    );
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:6390');
    // Ten failed reconnects a second for 2.5 minutes.
    for (let i = 0; i < 1_500; i += 1) {
      redis.emit('error', refused);
      now += 100;
    }
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      'ERROR Redis at 127.0.0.1:6390 is not answering (the connection was refused: nothing listens there). ' +
        'The bot keeps trying, and meanwhile tells people that its store is not answering; this is logged again once a minute until Redis is back. ' +
        'To run without Redis, leave REDIS_URL unset: change requests then live in this process only (one replica, lost on restart).',
    );
    expect(lines[1]).toBe(
      'ERROR Redis at 127.0.0.1:6390 is still not answering after 60s (the connection was refused: nothing listens there; 600 failed attempts since the last report).',
    );
    expect(lines[2]).toMatch(/still not answering after 120s/);
    redis.emit('ready');
    expect(lines[3]).toBe('INFO Redis at 127.0.0.1:6390 answers again, after 150s.');
    redis.emit('ready');
    expect(lines).toHaveLength(4);
    redis.emit('error', refused);
    expect(lines[4]).toMatch(/^ERROR Redis at 127\.0\.0\.1:6390 is not answering/);
    expect(OUTAGE_LOG_INTERVAL_MS).toBe(60_000);
  });
});
