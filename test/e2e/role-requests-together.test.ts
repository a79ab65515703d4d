/**
 * Review probe: a member's whole role list is sent (the API replaces it), so two requests on one
 * member must each change only their own role, whatever the other did meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_MEMBER_IDS, DEMO_ROLE_IDS } from '../../src/simulator/seed.js';
import { appliedMessage, callSimulatorApi, requestChange, useHarnesses, USERS, type Harness } from './harness.js';

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
});
