/**
 * `reset-password SERVICE` (issue 39): a change request whose PATCH …/password answer (the
 * generated password) is handed to the requester alone through Reveal, right where it arrives.
 * The password is searched for everywhere it must never be: every Slack call but the Reveal
 * window, every log line, every Redis value, the audit trail.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_CANCEL } from '../../src/core/render/change.js';
import { ACTION_REVEAL } from '../../src/core/render/secrets.js';
import { DOUBLE_SHA1_BLOCK, HASH_BLOCK } from '../../src/core/render/password-form.js';
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

/** The Reveal button's value in the requester's DMs (other DMs may come after it). */
async function revealIdOf(h: Harness): Promise<string> {
  const offered = /"action_id":"secret_reveal","value":"(sec-[0-9a-f]+)"/;
  const dm = await h.slack.waitFor(
    'chat.postMessage',
    (a) => a.channel === USERS.requester && offered.test(JSON.stringify(a.blocks)),
  );
  return offered.exec(JSON.stringify(dm.args.blocks))?.[1] ?? '';
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

    const secretId = await revealIdOf(h);
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
    const password = passwordIn(await reveal(h, await revealIdOf(h), USERS.requester));
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

  it('with-hash: a form whose hashes are checked for shape, sent as given, never shown, and no password comes back', async () => {
    const h = await harness();
    const password = `own-${randomBytes(6).toString('hex')}`;
    const sha256 = createHash('sha256').update(password).digest('base64');
    const sha1 = createHash('sha1').update(createHash('sha1').update(password).digest()).digest('hex');
    await h.command('reset-password orders-prod with-hash');
    const opened = await h.slack.waitFor('views.open', (a) => textOf(a.view).includes('New password (hashes)'));
    const view = opened.args.view as Record<string, unknown>;
    const input = (value: string) => ({ value: { type: 'plain_text_input', value } });
    const errorsOf = (ack: { body: string }) => (JSON.parse(ack.body) as { errors: Record<string, string> }).errors;

    const bad = await h.submitView(
      view,
      { [HASH_BLOCK]: input('not a hash'), [DOUBLE_SHA1_BLOCK]: input('xyz') },
      USERS.requester,
    );
    expect(errorsOf(bad)[HASH_BLOCK]).toContain('base64 of the SHA-256');
    expect(errorsOf(bad)[DOUBLE_SHA1_BLOCK]).toContain('40 hexadecimal characters');
    expect(await h.bot.changeStore.listOpen(Date.now(), 10)).toStrictEqual([]);

    await h.submitView(view, { [HASH_BLOCK]: input(sha256), [DOUBLE_SHA1_BLOCK]: input(sha1) }, USERS.requester);
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'));
    const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    expect(textOf(posted.args.blocks)).toContain('the one whose hashes the requester gave (not shown)');
    const stored = JSON.stringify(await h.bot.changeStore.get(id));
    expect(stored).not.toContain(sha256);
    expect(stored).not.toContain(sha1);

    await h.click(ACTION_APPROVE, id, USERS.approver);
    const applied = await appliedMessage(h, id);
    expect(passwordPatches(h).map((r) => r.body)).toStrictEqual([{ newPasswordHash: sha256, newDoubleSha1Hash: sha1 }]);
    // No password came back, so none is offered.
    expect(textOf(applied.args.blocks)).not.toContain('delivered');
    expect(
      h.slack.directMessages(USERS.requester).filter((m) => JSON.stringify(m.blocks).includes('secret_reveal')),
    ).toStrictEqual([]);
    for (const secret of [sha256, sha1]) {
      const calls = h.slack.calls.filter((call) => call.method !== 'views.open');
      expect(JSON.stringify(calls.map((call) => call.args)).includes(secret), 'Slack').toBe(false);
      expect(h.logs.filter((line) => line.includes(secret))).toStrictEqual([]);
    }
    const redis = new Redis(REDIS_URL);
    try {
      for (const key of await keysWithPrefix(redis, h.keyPrefix)) {
        const dump = (await redis.dumpBuffer(key))?.toString('latin1') ?? '';
        expect(dump.includes(sha256) || dump.includes(sha1), key).toBe(false);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('with-hash is asked for now only, and break-glass takes no form', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(BREAKGLASS_PROD) } });
    expect(await answerText(h, await h.command('reset-password orders-prod with-hash at 23:00'))).toContain(
      'never at a time',
    );
    const glass = await answerText(
      h,
      await h.command('breakglass reset-password orders-prod with-hash because "INC-9"', USERS.requester),
    );
    expect(glass).toContain('takes the hashes in its form');
    expect(passwordPatches(h)).toStrictEqual([]);
  });

  it('with-hash: the hashes sealed for a request are dropped once it settles without being applied', async () => {
    const h = await harness();
    const sha256 = createHash('sha256')
      .update(`pw-${randomBytes(4).toString('hex')}`)
      .digest('base64');
    await h.command('reset-password orders-prod with-hash');
    const opened = await h.slack.waitFor('views.open', (a) => textOf(a.view).includes('New password (hashes)'));
    await h.submitView(
      opened.args.view as Record<string, unknown>,
      { [HASH_BLOCK]: { value: { type: 'plain_text_input', value: sha256 } } },
      USERS.requester,
    );
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'));
    const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    const request = await h.bot.changeStore.get(id);
    const operation = request?.plan.operations?.[0];
    const sealed = operation?.endpoint === 'part' && operation.part === 'password' ? operation.body?.sealedHashes : '';
    expect(sealed).toMatch(/^sec-/);
    await h.click(ACTION_CANCEL, id, USERS.requester);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status).toBe('cancelled');
    // One look only (a take is itself a drop): the cancellation dropped them already.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await h.bot.services.secrets.take(sealed ?? '', USERS.requester)).toBeUndefined();
    expect(passwordPatches(h)).toStrictEqual([]);
  });
});
