/**
 * Every copy of a request shows its current state (issue 35, item 8): the approvers' DMs follow
 * the request like its channel message does, so nobody is left looking at "0 of 2 approvals" and
 * live buttons on a request that was applied, rejected or expired.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_REJECT } from '../../src/core/render/change.js';
import { CHANNEL, MINUTE, movableClock, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ nudgeTickMs: 50 });
const policyFile = usePolicyFiles();
const TWO_APPROVALS = `rules:
  - name: two people
    match: {}
    approvals: 2
    approvers: [U0APPROVER, U0SECOND]
`;
const APPROVERS = [USERS.approver, USERS.second];

/** The DM a person got about the request, as it reads now (the Slack stand-in keeps updates). */
function dmAbout(h: Harness, user: string, id: string) {
  const [dm, ...more] = h.slack.directMessages(user).filter((m) => textOf(m.blocks).includes(id));
  expect(more).toHaveLength(0);
  return { text: textOf(dm?.blocks ?? []), buttons: JSON.stringify(dm?.blocks ?? []) };
}

const hasButtons = (dm: { buttons: string }) =>
  dm.buttons.includes(ACTION_APPROVE) || dm.buttons.includes(ACTION_REJECT);

async function filedWithDms(h: Harness, text: string): Promise<string> {
  const { id } = await requestChange(h, text);
  await h.bot.changeRequests.drain();
  for (const person of APPROVERS) {
    const dm = dmAbout(h, person, id);
    expect(dm.text).toContain('0 of 2 approvals');
    expect(hasButtons(dm)).toBe(true);
  }
  return id;
}

const channelSays = (h: Harness, id: string, words: string) =>
  h.slack.waitFor(
    'chat.update',
    (a) => a.channel === CHANNEL && textOf(a.blocks).includes(id) && textOf(a.blocks).includes(words),
  );

describe("an approver's DM of a request", () => {
  it('counts each approval, and shows the request applied without buttons once it is', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(TWO_APPROVALS) } });
    const id = await filedWithDms(h, 'rename orders-staging orders-stage');

    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(() => dmAbout(h, USERS.second, id).text).toContain('1 of 2 approvals');
    expect(hasButtons(dmAbout(h, USERS.second, id))).toBe(true);

    await h.click(ACTION_APPROVE, id, USERS.second);
    await channelSays(h, id, 'Applied');
    for (const person of APPROVERS) {
      await expect.poll(() => dmAbout(h, person, id).text).toContain('Applied');
      expect(dmAbout(h, person, id).text).not.toContain('0 of 2 approvals');
      expect(hasButtons(dmAbout(h, person, id))).toBe(false);
    }
  });

  it('shows the request rejected, without buttons', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(TWO_APPROVALS) } });
    const id = await filedWithDms(h, 'rename orders-staging orders-stage');
    await h.click(ACTION_REJECT, id, USERS.approver);
    await channelSays(h, id, 'Rejected');
    for (const person of APPROVERS) {
      await expect.poll(() => dmAbout(h, person, id).text).toContain('Rejected');
      expect(hasButtons(dmAbout(h, person, id))).toBe(false);
    }
  });

  it('shows the request expired, without buttons, when nobody decided it in time', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now, env: { POLICY_FILE: policyFile(TWO_APPROVALS) } });
    const id = await filedWithDms(h, 'rename orders-staging orders-stage');
    clock.advance(24 * 60 * MINUTE);
    await channelSays(h, id, 'Expired');
    for (const person of APPROVERS) {
      await expect.poll(() => dmAbout(h, person, id).text).toContain('Expired');
      expect(hasButtons(dmAbout(h, person, id))).toBe(false);
    }
  });
});
