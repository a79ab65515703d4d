/**
 * The Cloud API misbehaving (500/503, 429 with X-RateLimit-Reset, timeouts, dropped connections)
 * during `list`, during an approval and during a summary. What the person sees must be the
 * retried result or a clear sentence with the status and request id; an approval must end in a
 * final state with its channel message updated, never replayed blindly; and the bot must keep
 * serving afterwards. Retry rules are the ones documented at the top of src/cloud/client.ts.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { FINAL_STATUSES } from '../../src/core/change/types.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { requestChange, textOf, useHarnesses, USERS, type Ack, type Harness } from '../e2e/harness.js';
import { stringMatching } from '../support/matchers.js';

/** Every command reaches the API (no list cache), so every armed fault is met where intended. */
const NO_CACHE = { CLICKHOUSE_CACHE_SECONDS: '0' };
/** The shortest per-request timeout the configuration allows. */
const ONE_SECOND = { ...NO_CACHE, CLICKHOUSE_TIMEOUT_SECONDS: '1' };
/** Reads are tried 1 + 3 times (readRetries). */
const READ_ATTEMPTS = 4;
const REQUEST_ID = /request id `[0-9a-f-]{36}`/;
/** "/clickhouse list failed: ..." followed by the sentence for the fault. */
const listFailed = (sentence: string) =>
  new RegExp(`/clickhouse list failed: ${sentence.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

const harness = useHarnesses({ env: NO_CACHE });

/** Reads of the services (a summary's spend section reads usageCost besides: not counted here). */
const gets = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'GET' && !r.path.endsWith('/usageCost'));
const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');

/** The private answer to a command (or click), optionally the first one matching. */
const answer = (h: Harness, ack: Ack, match: (text: string) => boolean = () => true, timeoutMs = 10_000) =>
  h.slack
    .waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId && match(textOf(a)), { timeoutMs })
    .then((c) => textOf(c.args));

/** Afterwards the bot keeps serving: a plain `list` answers with the services, and no fault is left armed. */
async function expectStillServing(h: Harness): Promise<void> {
  expect(h.simulator.faults.pending).toBe(0);
  const text = await answer(h, await h.command('list'));
  expect(text).toContain('orders-prod');
  expect(text).not.toContain(':x:');
}

async function requestRename(h: Harness, service: string, name: string) {
  const { id } = await requestChange(h, `rename ${service} "${name}"`);
  h.simulator.resetRequests();
  return id;
}

/** Approves, then waits for the channel message to show the outcome; the stored request is final. */
async function approveAndSettle(h: Harness, id: string, word: 'Applied' | 'Not applied', timeoutMs = 10_000) {
  const after = h.slack.calls.length;
  const click = await h.click(ACTION_APPROVE, id, USERS.approver);
  expect(click.status).toBe(200);
  const update = await h.slack.waitFor(
    'chat.update',
    (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(word),
    { after, timeoutMs },
  );
  const stored = await h.bot.changeStore.get(id);
  expect(FINAL_STATUSES).toContain(stored?.status);
  expect(stored?.status).toBe(word === 'Applied' ? 'applied' : 'failed');
  // Nothing was said privately to the approver: the outcome is in the channel.
  expect(h.slack.callsOf('response_url', (a) => a.responseUrlId === click.responseUrlId)).toHaveLength(0);
  return { text: textOf(update.args.blocks), stored, update };
}

describe('faults during list', () => {
  it('returns the retried result after 500 and 503 on fewer attempts than the read retries', async () => {
    const h = await harness();
    h.simulator.faults.failNext(2, 503, { on: 'GET' });
    h.simulator.faults.failNext(1, 500, { on: 'GET' });
    const text = await answer(h, await h.command('list'));
    expect(text).toContain('orders-prod');
    expect(gets(h)).toHaveLength(READ_ATTEMPTS);
    await expectStillServing(h);
  });

  it.each([500, 503])(
    'answers %i on every attempt with a clear sentence, the status and the request id',
    async (status) => {
      const h = await harness();
      h.simulator.faults.failNext(READ_ATTEMPTS, status, { on: 'GET' });
      const text = await answer(h, await h.command('list'));
      expect(text).toMatch(listFailed('ClickHouse Cloud had an internal error. Try again in a few minutes.'));
      expect(text).toContain(`status ${status}`);
      expect(text).toMatch(REQUEST_ID);
      expect(gets(h)).toHaveLength(READ_ATTEMPTS);
      await expectStillServing(h);
    },
  );

  it('waits for X-RateLimit-Reset after a 429 and answers with the result', async () => {
    const h = await harness();
    h.simulator.faults.rateLimitNext(1, 1, { on: 'GET' });
    const text = await answer(h, await h.command('list'));
    expect(text).toContain('orders-prod');
    const [limited, retried] = gets(h);
    expect(gets(h)).toHaveLength(2);
    expect((retried?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(950);
    await expectStillServing(h);
  });

  it('says the rate limit is used up, without waiting, when the reset is beyond the time budget', async () => {
    const h = await harness();
    h.simulator.faults.rateLimitNext(1, 30, { on: 'GET' });
    const text = await answer(h, await h.command('list'));
    expect(text).toContain("rate limit (10 requests per 10 seconds for the bot's key) is used up");
    expect(text).toContain('status 429');
    expect(text).toMatch(REQUEST_ID);
    expect(gets(h)).toHaveLength(1);
    await expectStillServing(h);
  });

  it('retries a read that timed out, and says so clearly when every attempt times out', async () => {
    const h = await harness({ env: ONE_SECOND });
    h.simulator.faults.hangNext(1, { on: 'GET' });
    expect(await answer(h, await h.command('list'))).toContain('orders-prod');
    expect(gets(h)).toHaveLength(2);

    h.simulator.resetRequests();
    h.simulator.faults.hangNext(READ_ATTEMPTS, { on: 'GET' });
    const text = await answer(h, await h.command('list'), undefined, 15_000);
    expect(text).toMatch(listFailed('ClickHouse Cloud did not answer in time. Try again in a minute.'));
    expect(gets(h)).toHaveLength(READ_ATTEMPTS);
    await expectStillServing(h);
  });

  it('retries a dropped connection, and says the API could not be reached when every attempt is dropped', async () => {
    const h = await harness();
    h.simulator.faults.dropNext(1, { on: 'GET' });
    expect(await answer(h, await h.command('list'))).toContain('orders-prod');
    expect(gets(h)).toHaveLength(2);

    h.simulator.resetRequests();
    h.simulator.faults.dropNext(READ_ATTEMPTS, { on: 'GET' });
    const text = await answer(h, await h.command('list'));
    expect(text).toMatch(listFailed('the bot could not reach ClickHouse Cloud.'));
    expect(gets(h)).toHaveLength(READ_ATTEMPTS);
    await expectStillServing(h);
  });
});

describe('faults during an approval', () => {
  it('marks the request failed when the update answers 500 and the service does not show the change', async () => {
    const h = await harness();
    const id = await requestRename(h, 'sandbox-dev', 'sandbox-500');
    h.simulator.faults.failNext(1, 500, { on: 'PATCH' });
    const { text, stored } = await approveAndSettle(h, id, 'Not applied');
    expect(text).toContain('The change was not applied: the service still does not show it a few seconds later.');
    expect(text).toContain('status 500');
    expect(stored?.outcome).toMatchObject({ status: 500, apiRequestId: stringMatching(/^[0-9a-f-]{36}$/) });
    expect(patches(h)).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.sandboxDev)?.name).toBe('sandbox-dev');
    await expectStillServing(h);
  });

  it('confirms a change whose update answered 503 after applying, by re-reading instead of replaying', async () => {
    const h = await harness();
    const id = await requestRename(h, 'sandbox-dev', 'sandbox-503');
    h.simulator.faults.failNext(1, 503, { on: 'PATCH', afterApply: true });
    const { text } = await approveAndSettle(h, id, 'Applied');
    expect(text).toContain('Confirmed by re-reading');
    expect(patches(h)).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.sandboxDev)?.name).toBe('sandbox-503');
    await expectStillServing(h);
  });

  it('applies the change after waiting out a 429 (the API refused it before acting)', async () => {
    const h = await harness();
    const id = await requestRename(h, 'sandbox-dev', 'sandbox-429');
    h.simulator.faults.rateLimitNext(1, 1, { on: 'PATCH' });
    const { stored } = await approveAndSettle(h, id, 'Applied');
    const [limited, applied] = patches(h);
    expect(patches(h)).toHaveLength(2);
    expect((applied?.at ?? 0) - (limited?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(stored?.outcome?.apiRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(h.simulator.service(DEMO_IDS.sandboxDev)?.name).toBe('sandbox-429');
    await expectStillServing(h);
  });

  it('marks the request failed when the rate limit resets beyond the time budget', async () => {
    const h = await harness();
    const id = await requestRename(h, 'sandbox-dev', 'sandbox-429-long');
    h.simulator.faults.rateLimitNext(1, 30, { on: 'PATCH' });
    const { text, stored } = await approveAndSettle(h, id, 'Not applied');
    expect(text).toContain('ClickHouse Cloud did not apply the change');
    expect(text).toContain('rate limit');
    expect(stored?.outcome?.status).toBe(429);
    expect(patches(h)).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.sandboxDev)?.name).toBe('sandbox-dev');
    await expectStillServing(h);
  });

  it.each([
    {
      fault: 'a timeout before the change applied',
      arm: (h: Harness) => h.simulator.faults.hangNext(1, { on: 'PATCH' }),
      applied: false,
      says: 'did not answer in time',
    },
    {
      fault: 'a timeout after the change applied',
      arm: (h: Harness) => h.simulator.faults.hangNext(1, { on: 'PATCH', afterApply: true }),
      applied: true,
      says: 'Confirmed by re-reading',
    },
    {
      fault: 'a dropped connection after the change applied',
      arm: (h: Harness) => h.simulator.faults.dropNext(1, { on: 'PATCH', afterApply: true }),
      applied: true,
      says: 'Confirmed by re-reading',
    },
    {
      fault: 'a dropped connection before the change applied',
      arm: (h: Harness) => h.simulator.faults.dropNext(1, { on: 'PATCH' }),
      applied: false,
      says: 'could not reach ClickHouse Cloud',
    },
  ])(
    'settles the request after $fault, from the service as it is, with one update call',
    async ({ arm, applied, says }) => {
      const h = await harness({ env: ONE_SECOND });
      const name = `sandbox-${applied ? 'yes' : 'no'}`;
      const id = await requestRename(h, 'sandbox-dev', name);
      arm(h);
      const { text } = await approveAndSettle(h, id, applied ? 'Applied' : 'Not applied');
      expect(text).toContain(says);
      expect(patches(h)).toHaveLength(1);
      expect(h.simulator.service(DEMO_IDS.sandboxDev)?.name).toBe(applied ? name : 'sandbox-dev');
      await expectStillServing(h);
    },
  );

  it('marks the request failed with "check the service" when neither the update nor the re-read answers', async () => {
    const h = await harness();
    const id = await requestRename(h, 'sandbox-dev', 'sandbox-unknown');
    h.simulator.faults.failNext(1, 500, { on: 'PATCH' });
    // Once the update is in, every read that could tell its outcome fails too.
    h.simulator.on('request', (r) => {
      if (r.method === 'PATCH') h.simulator.faults.failNext(READ_ATTEMPTS, 503, { on: 'GET' });
    });
    const { text, stored } = await approveAndSettle(h, id, 'Not applied');
    expect(text).toContain('The outcome is unknown: look at the service with the show command before asking again');
    expect(stored?.outcome?.status).toBe(500);
    expect(patches(h)).toHaveLength(1);
    expect(gets(h)).toHaveLength(1 + READ_ATTEMPTS);
    await expectStillServing(h);
  });

  it('changes nothing when the service cannot be re-read before applying', async () => {
    const h = await harness();
    const id = await requestRename(h, 'sandbox-dev', 'sandbox-unread');
    h.simulator.faults.failNext(READ_ATTEMPTS, 500, { on: 'GET' });
    const { text } = await approveAndSettle(h, id, 'Not applied');
    expect(text).toContain('Could not re-read the service before applying, so nothing was changed');
    expect(text).toContain('status 500');
    expect(patches(h)).toHaveLength(0);
    await expectStillServing(h);
  });
});

describe('faults during a summary', () => {
  const isHeadline = (a: Record<string, unknown>) =>
    a.thread_ts === undefined && String(a.text).startsWith('ClickHouse Cloud summary:');
  const isFailure = (a: Record<string, unknown>) => textOf(a.blocks).includes('summary could not be produced');

  it.each([
    {
      fault: '500 on every read attempt',
      arm: (h: Harness) => h.simulator.faults.failNext(READ_ATTEMPTS, 500, { on: 'GET' }),
      says: 'internal error',
      status: 'status 500',
    },
    {
      fault: 'a dropped connection on every read attempt',
      arm: (h: Harness) => h.simulator.faults.dropNext(READ_ATTEMPTS, { on: 'GET' }),
      says: 'could not reach ClickHouse Cloud',
      status: '',
    },
    {
      fault: 'a 429 resetting beyond the time budget',
      arm: (h: Harness) => h.simulator.faults.rateLimitNext(1, 30, { on: 'GET' }),
      says: 'rate limit',
      status: 'status 429',
    },
  ])('posts the failure in the channel and answers the person after $fault', async ({ arm, says, status }) => {
    const h = await harness();
    arm(h);
    const ack = await h.command('summary');
    const failure = await h.slack.waitFor('chat.postMessage', isFailure);
    expect(textOf(failure.args.blocks)).toContain(says);
    if (status) expect(textOf(failure.args.blocks)).toContain(status);
    const told = await answer(h, ack, (text) => text.includes('could not be posted'));
    expect(told).toContain(says);
    expect(h.slack.callsOf('chat.postMessage', isHeadline)).toHaveLength(0);

    // The next summary is produced normally.
    const again = h.slack.calls.length;
    await h.command('summary');
    await h.slack.waitFor('chat.postMessage', isHeadline, { after: again });
    await expectStillServing(h);
  });

  it.each([
    { fault: '503 once', arm: (h: Harness) => h.simulator.faults.failNext(1, 503, { on: 'GET' }) },
    {
      fault: 'a 429 with X-RateLimit-Reset 1 s',
      arm: (h: Harness) => h.simulator.faults.rateLimitNext(1, 1, { on: 'GET' }),
    },
    { fault: 'a timeout once', arm: (h: Harness) => h.simulator.faults.hangNext(1, { on: 'GET' }) },
    { fault: 'a dropped connection once', arm: (h: Harness) => h.simulator.faults.dropNext(1, { on: 'GET' }) },
  ])('posts the summary after retrying $fault', async ({ arm }) => {
    const h = await harness({ env: ONE_SECOND });
    arm(h);
    await h.command('summary');
    const headline = await h.slack.waitFor('chat.postMessage', isHeadline);
    expect(textOf(headline.args.blocks)).toContain('services in the organization');
    expect(h.slack.callsOf('chat.postMessage', isFailure)).toHaveLength(0);
    // The list read, retried once; the summary's keys line is a read of its own, after it.
    expect(gets(h).filter((r) => !r.path.endsWith('/keys'))).toHaveLength(2);
    expect(gets(h).at(-1)?.path).toMatch(/\/keys$/);
    await expectStillServing(h);
  });
});
