/**
 * Review probe: a member's whole role list is sent (the API replaces it), so two requests on one
 * member must each change only their own role, whatever the other did meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_EXTEND } from '../../src/core/render/temporary.js';
import { DEMO_MEMBER_IDS, DEMO_ROLE_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  appliedMessage,
  callSimulatorApi,
  requestChange,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';

const harness = useHarnesses();
const memberPath = `/members/${DEMO_MEMBER_IDS.developer}`;
const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(memberPath));

describe('two role requests on one member', () => {
  it('a grant approved after a revoke of another role does not give the revoked role back', async () => {
    const h = await harness();
    h.slack.userEmails.set(USERS.approver, 'ada@example.com');
    await callSimulatorApi(h, 'PATCH', memberPath, {
      assignedRoleIds: [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.billingViewer],
    });
    const revoke = await requestChange(h, 'revoke Developer from dev@example.com');
    const grant = await requestChange(h, 'grant Admin to dev@example.com');
    await h.click(ACTION_APPROVE, revoke.id, USERS.approver);
    await appliedMessage(h, revoke.id);
    await h.click(ACTION_APPROVE, grant.id, USERS.approver);
    await appliedMessage(h, grant.id);
    expect(patches(h).at(-1)?.body).toStrictEqual({
      assignedRoleIds: [DEMO_ROLE_IDS.billingViewer, DEMO_ROLE_IDS.admin],
    });
  });

  it('a grant approved after another grant keeps the role granted first', async () => {
    const h = await harness();
    h.slack.userEmails.set(USERS.approver, 'ada@example.com');
    const first = await requestChange(h, 'grant Admin to dev@example.com');
    const second = await requestChange(h, 'grant "Billing viewer" to dev@example.com');
    await h.click(ACTION_APPROVE, first.id, USERS.approver);
    await appliedMessage(h, first.id);
    await h.click(ACTION_APPROVE, second.id, USERS.approver);
    await appliedMessage(h, second.id);
    expect(patches(h).at(-1)?.body).toStrictEqual({
      assignedRoleIds: [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.admin, DEMO_ROLE_IDS.billingViewer],
    });
  });

  it('an Extend of a temporary grant is read as the member, and never approved by that member', async () => {
    const h = await harness();
    h.slack.userEmails.set(USERS.approver, 'dev@example.com');
    h.slack.userEmails.set(USERS.second, 'ada@example.com');
    const { id } = await requestChange(h, 'grant Admin to dev@example.com for 2h');
    await h.click(ACTION_APPROVE, id, USERS.second);
    await appliedMessage(h, id);
    await h.click(ACTION_EXTEND, id, USERS.requester);
    const extension = async () =>
      (await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).find((r) => r.extendOf === id);
    await expect.poll(async () => (await extension())?.id).toBeDefined();
    const extensionId = (await extension())?.id ?? '';
    const own = await answerText(h, await h.click(ACTION_APPROVE, extensionId, USERS.approver));
    expect(own).toContain('changes your own roles');
    await h.click(ACTION_APPROVE, extensionId, USERS.second);
    await expect.poll(async () => (await h.bot.changeStore.get(extensionId))?.status).toBe('applied');
  });
  it('two revokes of Admin made together leave one Admin', async () => {
    const h = await harness();
    h.slack.userEmails.set(USERS.approver, 'bill@example.com');
    await callSimulatorApi(h, 'PATCH', `/members/${DEMO_MEMBER_IDS.developer}`, {
      assignedRoleIds: [DEMO_ROLE_IDS.developer, DEMO_ROLE_IDS.admin],
    });
    await callSimulatorApi(h, 'PATCH', `/members/${DEMO_MEMBER_IDS.admin}`, {
      assignedRoleIds: [DEMO_ROLE_IDS.admin, DEMO_ROLE_IDS.developer],
    });
    const first = await requestChange(h, 'revoke Admin from dev@example.com');
    const second = await requestChange(h, 'revoke Admin from ada@example.com');
    await h.click(ACTION_APPROVE, first.id, USERS.approver);
    await appliedMessage(h, first.id);
    await h.click(ACTION_APPROVE, second.id, USERS.approver);
    await h.slack.waitFor(
      'chat.postMessage',
      (a) => String(a['text']).includes(second.id) && String(a['text']).includes('not applied'),
    );
    // Said of the member, not of a service.
    expect((await h.bot.changeStore.get(second.id))?.outcome?.message).toMatch(/^The member changed since/);
    // Two PATCHes set the scene, one revoke is sent: the second is refused before anything leaves.
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH' && r.path.includes('/members/'))).toHaveLength(3);
  });

  it("refuses to revoke a member's only role, with what to do instead", async () => {
    const h = await harness();
    const answer = await answerText(h, await h.command('revoke Developer from dev@example.com'));
    expect(answer).toContain('only role of dev@example.com: grant another role first');
    expect(patches(h)).toHaveLength(0);
  });
});
