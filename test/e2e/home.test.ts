/**
 * The Home tab (issue 25), over HTTP with real Redis, the simulator and the Slack stand-in:
 * opening it publishes the person's own view (views.publish), a request moving republishes the
 * Homes of the people it concerns, and a click in the Home tab takes the ordinary path and is
 * answered by DM. Every step awaits the call it expects.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_CANCEL } from '../../src/core/render/change.js';
import { SocketModeServer } from '../support/socket-mode-server.js';
import { requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const servers: SocketModeServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()?.close();
});
const harness = useHarnesses({ env: { APPROVERS: `${USERS.approver},S0DBAS` } });
const policyFile = usePolicyFiles();

/** The next Home published for `user` (from call number `after` on) whose text passes `match`. */
function home(h: Harness, user: string, match: (text: string) => boolean, after = 0) {
  return h.slack
    .waitFor('views.publish', (a) => a.user_id === user && match(textOf(a.view)), { after })
    .then((call) => call.args.view as { type: string; blocks: unknown[] });
}

function approveButtons(view: { blocks: unknown[] }): string[] {
  return (view.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>)
    .flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))
    .filter((e) => e.action_id === ACTION_APPROVE)
    .map((e) => e.value);
}

/** The Cancel buttons of a Home view: the request each calls off, and its label. */
function cancelButtons(view: { blocks: unknown[] }): Array<{ value: string; label: string }> {
  type Button = { action_id: string; value: string; text: { text: string } };
  return (view.blocks as Array<{ accessory?: Button; elements?: Button[] }>)
    .flatMap((b) => [...(b.accessory ? [b.accessory] : []), ...(b.elements ?? [])])
    .filter((e) => e.action_id === ACTION_CANCEL)
    .map((e) => ({ value: e.value, label: e.text.text }));
}

async function open(h: Harness, user: string) {
  const after = h.slack.calls.length;
  const ack = await h.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
  expect(ack.status).toBe(200);
  return home(h, user, () => true, after);
}

describe('the Home tab', () => {
  it('opening it shows each person what waits for them; approving republishes the Homes it concerns', async () => {
    const h = await harness();
    h.slack.userGroups.set('S0DBAS', [USERS.second]);
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');

    const approverHome = await open(h, USERS.approver);
    expect(approverHome.type).toBe('home');
    expect(approveButtons(approverHome)).toStrictEqual([id]);
    expect(approveButtons(await open(h, USERS.second))).toStrictEqual([id]); // through the user group
    const outsider = await open(h, USERS.outsider);
    expect(approveButtons(outsider)).toStrictEqual([]);
    expect(textOf(outsider)).toContain('Nothing is waiting for your approval.');
    const mine = await open(h, USERS.requester);
    expect(approveButtons(mine)).toStrictEqual([]);
    expect(textOf(mine)).toContain('Your requests (1 open)');
    expect(textOf(mine)).toContain(id);

    // Approved from the Home tab: the same path as the channel's button, and every Home it concerns is redrawn.
    const after = h.slack.calls.length;
    const ack = await h.clickHome(ACTION_APPROVE, id, USERS.second);
    expect(ack.status).toBe(200);
    const requesterHome = await home(h, USERS.requester, (t) => t.includes(id) && t.includes('applied'), after);
    expect(textOf(requesterHome)).toContain('Your requests (0 open)');
    await home(h, USERS.approver, (t) => t.includes('Waiting for you (0)'), after);
    await home(h, USERS.second, (t) => t.includes('Waiting for you (0)'), after);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    expect(h.slack.callsOf('views.publish', (a) => a.user_id === USERS.outsider)).toHaveLength(1);
  });

  it('a move redraws only the Homes people have opened: the others are drawn when they open the tab', async () => {
    const h = await harness();
    await open(h, USERS.approver);
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    const after = h.slack.calls.length;
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await home(h, USERS.approver, (t) => t.includes('Waiting for you (0)'), after);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    await h.bot.homes.idle();
    // The requester never opened the tab: nothing was published for them, and their store reads were saved.
    expect(h.slack.callsOf('views.publish', (a) => a.user_id === USERS.requester)).toHaveLength(0);
    expect(textOf(await open(h, USERS.requester))).toContain('Your requests (0 open)');
  });

  it("the requester's Home has Cancel on each open request; a click there cancels it as in the channel", async () => {
    const h = await harness();
    h.slack.userGroups.set('S0DBAS', []);
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    const mine = await open(h, USERS.requester);
    expect(cancelButtons(mine)).toStrictEqual([{ value: id, label: 'Cancel' }]);
    // An approver's Home has Approve and Reject, not the requester's Cancel.
    expect(cancelButtons(await open(h, USERS.approver))).toStrictEqual([]);

    // Only the requester (or an approver) may: someone else's click changes nothing.
    await h.clickHome(ACTION_CANCEL, id, USERS.outsider);
    const refused = await h.slack.waitFor('chat.postMessage', (a) => a.channel === USERS.outsider);
    expect(textOf(refused.args.blocks)).not.toContain('Cancelled');
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');

    const after = h.slack.calls.length;
    await h.clickHome(ACTION_CANCEL, id, USERS.requester);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && /cancel/i.test(textOf(a.blocks)));
    const redrawn = await home(h, USERS.requester, (t) => t.includes('Your requests (0 open)'), after);
    expect(cancelButtons(redrawn)).toStrictEqual([]);
    expect((await h.bot.changeStore.get(id))?.status).toBe('cancelled');
  });

  it('a Home click that does not count is answered by DM, since it has no channel', async () => {
    const h = await harness();
    h.slack.userGroups.set('S0DBAS', []);
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    await h.clickHome(ACTION_APPROVE, id, USERS.outsider);
    const answer = await h.slack.waitFor('chat.postMessage', (a) => a.channel === USERS.outsider);
    expect(textOf(answer.args.blocks)).toContain(`<@${USERS.approver}>`);
  });

  it('opens in Socket Mode too: app_home_opened arrives as an events_api envelope', async () => {
    const socket = await SocketModeServer.start();
    servers.push(socket);
    const h = await harness({ socketMode: socket });
    await socket.waitForOpen(1);
    h.slack.userGroups.set('S0DBAS', []);
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    expect(approveButtons(await open(h, USERS.approver))).toStrictEqual([id]);
  });

  it('an escalation redraws the Home of the people it adds, with the request waiting for them', async () => {
    let offset = 0;
    const policy =
      'rules:\n  - name: dbas first\n    match: {}\n    approvals: 1\n    approvers: [U0APPROVER]\n    escalate: { after: 2h, to: [U0SECOND] }\n';
    const h = await harness({
      clock: () => Date.now() + offset,
      nudgeTickMs: 50,
      env: { POLICY_FILE: policyFile(policy), CHANGE_TTL_SECONDS: String(4 * 3600) },
    });
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    expect(approveButtons(await open(h, USERS.second))).toStrictEqual([]);
    const after = h.slack.calls.length;
    offset = 2 * 3_600_000 + 60_000;
    const escalated = await home(h, USERS.second, (t) => t.includes(id), after);
    expect(approveButtons(escalated)).toStrictEqual([id]);
  });

  it("a temporary change shows in its requester's Home with Extend and Revert now, and leaves it once reverted", async () => {
    let skew = 0;
    const h = await harness({ clock: () => Date.now() + skew, temporaryTickMs: 50 });
    await open(h, USERS.requester);
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.45/32 hotel for 1m');
    const after = h.slack.calls.length;
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const granted = await home(h, USERS.requester, (t) => t.includes('Your temporary changes (1)'), after);
    expect(JSON.stringify(granted.blocks)).toContain(`"action_id":"temporary_extend"`);
    expect(JSON.stringify(granted.blocks)).toContain(`"action_id":"temporary_revert_now"`);
    const beforeRevert = h.slack.calls.length;
    skew = 61_000;
    await home(h, USERS.requester, (t) => t.includes('Your temporary changes (0)'), beforeRevert);
  });
});
