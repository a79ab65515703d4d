/**
 * Changes whose target is not a service (issues 36 and 40): a member's roles (`grant`, `revoke`)
 * and an API key (`key disable|enable|expire`), end to end over the real wire: read afresh like a
 * service, judged by policies on their kind and risk, sent once, reverted exactly.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_REVERT_NOW } from '../../src/core/render/temporary.js';
import { DEMO_MEMBER_IDS, DEMO_OTHER_KEY_IDS, DEMO_ROLE_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  appliedMessage,
  callSimulatorApi,
  requestChange,
  textOf,
  startHarness,
  useHarnesses,
  USERS,
  withSharedBackends,
  type Harness,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const patchesTo = (h: Harness, suffix: string) =>
  h.simulator.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(suffix));

describe('grant and revoke', () => {
  it('grants a role for a while, and the revert takes back exactly that role, leaving one granted meanwhile', async () => {
    const h = await harness();
    h.slack.userEmails.set(USERS.approver, 'ada@example.com');
    const { id, posted } = await requestChange(h, 'grant Admin to dev@example.com for 2h');
    const request = textOf(posted.args.blocks);
    expect(request).toContain('dev@example.com');
    expect(request).toMatch(/Roles\*: `Developer` → `Developer, Admin`/);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    const memberPath = `/members/${DEMO_MEMBER_IDS.developer}`;
    expect(patchesTo(h, memberPath).map((r) => r.body)).toStrictEqual([
      { assignedRoleIds: [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.admin] },
    ]);
    // Someone gives the same person another role in the console meanwhile.
    await callSimulatorApi(h, 'PATCH', memberPath, {
      assignedRoleIds: [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.admin, DEMO_ROLE_IDS.billingViewer],
    });
    await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    await expect.poll(() => patchesTo(h, memberPath).length, { timeout: 10_000 }).toBe(3);
    await h.bot.changeRequests.drain();
    expect(patchesTo(h, memberPath).at(-1)?.body).toStrictEqual({
      assignedRoleIds: [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.billingViewer],
    });
  });

  it('refuses an unknown email with candidates, a role already held, an unknown role and the last Admin', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('grant Admin to nobody@example.com'))).toMatch(
      /No member of the organization has the email nobody@example.com\. Members: .*ada@example.com/,
    );
    expect(await answerText(h, await h.command('grant Developer to dev@example.com'))).toContain(
      'already has the role Developer',
    );
    expect(await answerText(h, await h.command('grant Wizard to dev@example.com'))).toMatch(
      /no role .*Wizard.*Roles: Admin, Developer/,
    );
    expect(await answerText(h, await h.command('revoke Admin from ada@example.com'))).toContain('last Admin');
    expect(await answerText(h, await h.command('grant Admin dev@example.com'))).toContain('grant ROLE to EMAIL');
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('reads @user as their Slack profile email, and never lets a member approve a change to their own roles', async () => {
    const h = await harness();
    h.slack.userEmails.set(USERS.approver, 'dev@example.com');
    h.slack.userEmails.set(USERS.second, 'ada@example.com');
    const { id, posted } = await requestChange(h, `grant Admin to <@${USERS.approver}|dev>`);
    expect(textOf(posted.args.blocks)).toContain('dev@example.com');
    // The member whose roles change clicks Approve: refused, nothing sent.
    const own = await answerText(h, await h.click(ACTION_APPROVE, id, USERS.approver));
    expect(own).toContain('changes your own roles');
    expect(patchesTo(h, `/members/${DEMO_MEMBER_IDS.developer}`)).toHaveLength(0);
    // Someone whose email Slack does not give cannot be told apart: refused with what to do.
    const unknown = await answerText(h, await h.click(ACTION_APPROVE, id, USERS.outsider));
    expect(unknown).toContain('users:read.email');
    await h.click(ACTION_APPROVE, id, USERS.second);
    await appliedMessage(h, id);
    expect(patchesTo(h, `/members/${DEMO_MEMBER_IDS.developer}`)).toHaveLength(1);
  });

  it('says what to do when Slack gives no email for @user', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command(`grant Admin to <@${USERS.second}|bob>`))).toContain(
      "give the member's email instead",
    );
  });

  it('an Admin grant carries the admin-grant risk a policy rule can ask two approvals for', async () => {
    const path = policyFile(
      'rules:\n  - name: admins need two\n    match: { risks: [admin-grant] }\n    approvals: 2\n',
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    h.slack.userEmails.set(USERS.approver, 'ada@example.com');
    const { id, posted } = await requestChange(h, 'grant Admin to bill@example.com');
    expect(textOf(posted.args.blocks)).toContain('admins need two');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('1 of 2'));
    expect(patchesTo(h, `/members/${DEMO_MEMBER_IDS.billing}`)).toHaveLength(0);
  });
});

describe('key disable, enable, expire', () => {
  it('disables a key once approved, and enabling it again carries the key-enable risk', async () => {
    const path = policyFile('rules:\n  - name: enabling keys\n    match: { risks: [key-enable] }\n    approvals: 2\n');
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id, posted } = await requestChange(h, 'key disable ci-readonly');
    expect(textOf(posted.args.blocks)).toMatch(/State\*: `enabled` → `disabled`/);
    expect(textOf(posted.args.blocks)).not.toContain('enabling keys');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    const keyPath = `/keys/${DEMO_OTHER_KEY_IDS.unused}`;
    expect(patchesTo(h, keyPath).map((r) => r.body)).toStrictEqual([{ state: 'disabled' }]);
    const enable = await requestChange(h, 'key enable …q7Zk');
    expect(textOf(enable.posted.args.blocks)).toContain('enabling keys');
  });

  it("refuses the bot's own key, an unknown key with the list, and an unreadable expiry", async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('key disable "chat-ops bot"'))).toContain('the key the bot uses');
    expect(await answerText(h, await h.command('key expire "chat-ops bot" in 7d'))).toContain('the key the bot uses');
    // Never expiring cuts nothing off: asked like any other key change.
    expect(await answerText(h, await h.command('key expire "chat-ops bot" never'))).toMatch(/CR-[0-9A-F]{10}/);
    expect(await answerText(h, await h.command('key disable nothing-here'))).toMatch(
      /No API key is called nothing-here\. Keys: .*terraform/,
    );
    expect(await answerText(h, await h.command('key expire terraform in forever'))).toContain('in Nd');
    expect(await answerText(h, await h.command('key rotate terraform'))).toContain('key disable');
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('sets an expiry 30 days from the day it is asked', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'key expire terraform in 30d');
    expect(textOf(posted.args.blocks)).toMatch(/Expires\*: `never` → `\d{4}-\d\d-\d\d`/);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    const [sent] = patchesTo(h, `/keys/${DEMO_OTHER_KEY_IDS.neverExpires}`).map((r) => r.body as { expireAt: string });
    const days = (Date.parse(sent?.expireAt ?? '') - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
  });

  it('disables a leaked key at once under break-glass, and files its review', async () => {
    const path = policyFile('breakglass: [U0REQUESTER]\nbreakglass_max: 2h\nrules: []\n');
    const h = await harness({ env: { POLICY_FILE: path } });
    // Only a key disabled contains a leak: enabling one, or any other change, still needs a duration.
    expect(await answerText(h, await h.command('breakglass key enable terraform because "x"'))).toContain(
      'Break-glass changes are temporary',
    );
    const answer = await answerText(
      h,
      await h.command('breakglass key disable terraform because "leaked in a CI log"', USERS.requester),
    );
    const id = /CR-[0-9A-F]{10}/.exec(answer)?.[0] ?? '';
    expect(id).not.toBe('');
    // A containment stays: no duration was asked, and nothing will be taken back.
    expect(answer).toContain('it stays');
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status).toBe('applied');
    expect(patchesTo(h, `/keys/${DEMO_OTHER_KEY_IDS.neverExpires}`).map((r) => r.body)).toStrictEqual([
      { state: 'disabled' },
    ]);
    await expect.poll(async () => (await h.bot.changeStore.get(`${id}-B`))?.status).toBe('pending');
  });

  it('two replicas approving at once send the key change once', async () => {
    await withSharedBackends(async ({ simulator, slack, keyPrefix }) => {
      const shared = { simulator, slack, keyPrefix };
      const a = await harness(shared);
      const b = await startHarness(shared);
      try {
        const { id } = await requestChange(a, 'key disable ci-readonly');
        await Promise.all([a.click(ACTION_APPROVE, id, USERS.approver), b.click(ACTION_APPROVE, id, USERS.second)]);
        await expect.poll(async () => (await a.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
        await Promise.all([a.bot.changeRequests.drain(), b.bot.changeRequests.drain()]);
        expect(patchesTo(a, `/keys/${DEMO_OTHER_KEY_IDS.unused}`)).toHaveLength(1);
      } finally {
        await b.stop();
      }
    });
  });

  it('lists the kinds in help', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('help grant'))).toContain('grant Admin to dev@example.com for 2h');
    expect(await answerText(h, await h.command('help key'))).toContain('key expire terraform in 30d');
  });
});
