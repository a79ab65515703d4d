/**
 * Reveal (issue 37's mechanism for secrets, reused by password resets): a secret delivered to one
 * person is offered by DM, shown once in a modal to them alone, and found nowhere else: not in any
 * other Slack call, not in a log line, not in Redis in clear.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ACTION_REVEAL } from '../../src/core/render/secrets.js';
import { keysWithPrefix } from '../support/redis.js';
import { REDIS_URL, textOf, useHarnesses, USERS, type Harness } from './harness.js';

const SECRETS_KEY = randomBytes(32).toString('hex');
const harness = useHarnesses({ env: { SECRETS_KEY } });
const PASSWORD = `pw-${randomBytes(9).toString('base64url')}`;
const LABEL = 'the default password of orders-restored';

/** Delivers the password to the requester and returns the Reveal button's value from their DM. */
async function delivered(h: Harness): Promise<string> {
  const outcome = await h.bot.services.secrets.deliver({ ownerId: USERS.requester, value: PASSWORD, label: LABEL });
  expect(outcome.delivered).toBe(true);
  const dm = h.slack.directMessages(USERS.requester).at(-1);
  const value = /"action_id":"secret_reveal","value":"(sec-[0-9a-f]+)"/.exec(JSON.stringify(dm?.blocks))?.[1];
  expect(value).toBeDefined();
  return value ?? '';
}

/** Clicks Reveal as `user` and returns the modal's text once the bot has filled it. */
async function reveal(h: Harness, secretId: string, user: string): Promise<string> {
  const after = h.slack.calls.length;
  await h.click(ACTION_REVEAL, secretId, user, undefined, { trigger: true });
  const filled = await h.slack.waitFor('views.update', () => true, { after });
  return textOf(filled.args.view);
}

/** Every place the password must never be: Slack calls but the modal's, the log, Redis. */
async function expectNowhereButTheModal(h: Harness): Promise<void> {
  const calls = h.slack.calls.filter((call) => call.method !== 'views.update');
  expect(JSON.stringify(calls.map((call) => call.args))).not.toContain(PASSWORD);
  const leaked = h.logs.filter((line) => line.includes(PASSWORD));
  expect(leaked).toStrictEqual([]);
  const redis = new Redis(REDIS_URL);
  try {
    for (const key of await keysWithPrefix(redis, h.keyPrefix)) {
      const dump = (await redis.dumpBuffer(key))?.toString('latin1') ?? '';
      expect(dump).not.toContain(PASSWORD);
    }
  } finally {
    redis.disconnect();
  }
}

describe('Reveal password', () => {
  it('shows the secret once, in a modal, to its owner; a second click says it was already revealed', async () => {
    const h = await harness();
    const id = await delivered(h);
    const dm = textOf(h.slack.directMessages(USERS.requester).at(-1)?.blocks);
    expect(dm).toContain('The default password of orders-restored is ready for you');
    expect(dm).not.toContain(PASSWORD);
    expect(await reveal(h, id, USERS.requester)).toContain(PASSWORD);
    const again = await reveal(h, id, USERS.requester);
    expect(again).toContain('was already revealed');
    expect(again).not.toContain(PASSWORD);
    await expectNowhereButTheModal(h);
  });

  it('refuses anyone else in a sentence, and still reveals it to its owner after', async () => {
    const h = await harness();
    const id = await delivered(h);
    const refused = await reveal(h, id, USERS.approver);
    expect(refused).toContain('delivered to someone else, and only they can reveal it');
    expect(refused).not.toContain(USERS.requester);
    expect(refused).not.toContain('orders-restored');
    expect(refused).not.toContain(PASSWORD);
    expect(await reveal(h, id, USERS.requester)).toContain(PASSWORD);
    await expectNowhereButTheModal(h);
  });

  it('says a secret past its 15 minutes expired, and tells the owner to ask for a reset', async () => {
    let now = Date.now();
    const h = await harness({ clock: () => now });
    const id = await delivered(h);
    now += 15 * 60_000;
    const expired = await reveal(h, id, USERS.requester);
    expect(expired).toContain('expired unrevealed');
    expect(expired).toContain('password reset');
    await expectNowhereButTheModal(h);
  });

  it('without SECRETS_KEY, a click that reaches another replica says why it cannot reveal and what would let it', async () => {
    const a = await harness({ env: { SECRETS_KEY: '' } });
    const b = await harness({
      env: { SECRETS_KEY: '' },
      slack: a.slack,
      simulator: a.simulator,
      keyPrefix: a.keyPrefix,
    });
    const id = await delivered(a);
    const elsewhere = await reveal(b, id, USERS.requester);
    expect(elsewhere).toContain('another replica');
    expect(elsewhere).toContain('SECRETS_KEY');
    expect(elsewhere).not.toContain(PASSWORD);
    // The replica that keeps it still reveals it.
    expect(await reveal(a, id, USERS.requester)).toContain(PASSWORD);
  });
});
