/**
 * `reset-password SERVICE` (issue 39): a change request whose PATCH …/password answer (the
 * generated password) is handed to the requester alone through Reveal, right where it arrives.
 * The password is searched for everywhere it must never be: every Slack call but the Reveal
 * window, every log line, every Redis value, the audit trail.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_REVEAL } from '../../src/core/render/secrets.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { keysWithPrefix } from '../support/redis.js';
import {
  answerText,
  appliedMessage,
  REDIS_URL,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  withSharedBackends,
  type Harness,
} from './harness.js';
import { BREAKGLASS_PROD, usePolicyFiles } from './policy-files.js';

const SECRETS_KEY = randomBytes(32).toString('hex');
const harness = useHarnesses({ env: { SECRETS_KEY } });
const policyFile = usePolicyFiles();

const passwordPatches = (h: Harness) =>
  h.simulator.requests.filter(
    (r) => r.method === 'PATCH' && r.path.endsWith(`/services/${DEMO_IDS.ordersProd}/password`),
  );

/** The Reveal button's value in the requester's last DM. */
function revealIdOf(h: Harness): string {
  const dm = h.slack.directMessages(USERS.requester).at(-1);
  return /"action_id":"secret_reveal","value":"(sec-[0-9a-f]+)"/.exec(JSON.stringify(dm?.blocks))?.[1] ?? '';
}

/** Clicks Reveal as `user`; the window the bot fills. */
async function reveal(h: Harness, secretId: string, user: string) {
  const after = h.slack.calls.length;
  await h.click(ACTION_REVEAL, secretId, user, undefined, { trigger: true });
  return (await h.slack.waitFor('views.update', () => true, { after })).args.view;
}

/** The text of the Reveal window's preformatted block: the password. */
function passwordIn(view: unknown): string {
  return /"rich_text_preformatted","elements":\[\{"type":"text","text":"([^"]+)"/.exec(JSON.stringify(view))?.[1] ?? '';
}

/** The password is nowhere but in the Reveal window: Slack calls, logs, Redis, the audit trail. */
async function expectNowhereButTheWindow(h: Harness, password: string): Promise<void> {
  expect(password.length).toBeGreaterThan(8);
  const calls = h.slack.calls.filter((call) => call.method !== 'views.update');
  expect(JSON.stringify(calls.map((call) => call.args))).not.toContain(password);
  expect(h.logs.filter((line) => line.includes(password))).toStrictEqual([]);
  const audit = await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.ordersProd, limit: 50 });
  expect(JSON.stringify(audit)).not.toContain(password);
  const redis = new Redis(REDIS_URL);
  try {
    for (const key of await keysWithPrefix(redis, h.keyPrefix)) {
      const dump = (await redis.dumpBuffer(key))?.toString('latin1') ?? '';
      expect(dump, key).not.toContain(password);
    }
  } finally {
    redis.disconnect();
  }
}

describe('reset-password SERVICE', () => {
  it('asks approval, sends an empty PATCH, and hands the new password to the requester alone, once', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'reset-password orders-prod');
    const request = textOf(posted.args.blocks);
    expect(request).toContain('the current password is never read'.replace(/^t/, 'T'));
    expect(request).toContain('by DM with a Reveal button');
    expect(passwordPatches(h)).toHaveLength(0);

    await h.click(ACTION_APPROVE, id, USERS.approver);
    const applied = await appliedMessage(h, id);
    expect(textOf(applied.args.blocks)).toContain(
      `The new password was delivered to the requester (${USERS.requester}) alone`,
    );
    expect(passwordPatches(h).map((r) => r.body)).toStrictEqual([{}]);

    const secretId = revealIdOf(h);
    expect(textOf(h.slack.directMessages(USERS.requester).at(-1)?.blocks)).toContain(
      'The new password of orders-prod is ready for you',
    );
    const refused = textOf(await reveal(h, secretId, USERS.approver));
    expect(refused).toContain('only they can reveal it');
    const password = passwordIn(await reveal(h, secretId, USERS.requester));
    expect(password).toMatch(/~[0-9a-f]{6}$/);
    expect(textOf(await reveal(h, secretId, USERS.requester))).toContain('was already revealed');

    const audit = await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.ordersProd, limit: 10 });
    const entry = audit.find((e) => e.changeId === id && e.action === 'applied');
    expect(entry?.message).toContain(`delivered to the requester (${USERS.requester})`);
    expect(entry?.summary).toMatch(/Password/);
    await expectNowhereButTheWindow(h, password);
  });

  it('says so when the DM cannot be sent: nobody has the password, reset it again', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'reset-password orders-prod');
    h.slack.failingChannels.set(USERS.requester, 'user_disabled');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const applied = await appliedMessage(h, id);
    expect(textOf(applied.args.blocks)).toContain('could not DM');
    expect(textOf(applied.args.blocks)).toContain('reset it again');
  });

  it('is never temporary, carries the credential risk, and cannot be undone', async () => {
    const path = policyFile('rules:\n  - name: credentials\n    match: { risks: [credential] }\n    approvals: 2\n');
    const h = await harness({ env: { POLICY_FILE: path } });
    expect(await answerText(h, await h.command('reset-password orders-prod for 1h'))).toContain('never temporary');
    expect(await answerText(h, await h.command('reset-password orders-prod now please'))).toContain(
      'reset-password takes a service',
    );
    const { posted } = await requestChange(h, 'reset-password orders-prod');
    expect(textOf(posted.args.blocks)).toContain('credentials');
    expect(await answerText(h, await h.command('policy orders-prod'))).toContain('password');
  });

  it('break-glass resets at once without a duration, and the password still reaches only the requester', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(BREAKGLASS_PROD) } });
    const answer = await answerText(
      h,
      await h.command('breakglass reset-password orders-prod because "INC-9 leaked in a gist"', USERS.requester),
    );
    expect(answer).toMatch(/Break-glass `CR-[0-9A-F]{10}` was applied without approval/);
    expect(passwordPatches(h)).toHaveLength(1);
    const password = passwordIn(await reveal(h, revealIdOf(h), USERS.requester));
    await expectNowhereButTheWindow(h, password);
  });

  it('two replicas, one reset: approved on both at once, one PATCH and one Reveal', async () => {
    await withSharedBackends(async ({ simulator, slack, keyPrefix }) => {
      const a = await harness({ simulator, slack, keyPrefix });
      const b = await harness({ simulator, slack, keyPrefix });
      const { id } = await requestChange(a, 'reset-password orders-prod');
      await Promise.all([a.click(ACTION_APPROVE, id, USERS.approver), b.click(ACTION_APPROVE, id, USERS.approver)]);
      await appliedMessage(a, id);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(passwordPatches(a)).toHaveLength(1);
      const offers = slack
        .directMessages(USERS.requester)
        .filter((m) => JSON.stringify(m.blocks).includes('secret_reveal'));
      expect(offers).toHaveLength(1);
    });
  });
});
