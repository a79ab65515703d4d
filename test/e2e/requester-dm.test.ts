/**
 * The requester is told directly (a DM: chat.postMessage to their user id) what became of their
 * request: approved, applied, failed, rejected with the reason typed in the Reject form, expired,
 * and their temporary change reverted. A DM that Slack refuses changes nothing. Over HTTP, with
 * real Redis, the simulator and the Slack stand-in.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_REJECT } from '../../src/core/render/change.js';
import { REJECT_BLOCK } from '../../src/core/render/reject-form.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  CHANNEL,
  clickPayload,
  requestChange,
  signatureHeaders,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';

const harness = useHarnesses({ temporaryTickMs: 50 });

/** The next DM to `user` whose text contains `words`. */
function dm(h: Harness, user: string, words: string) {
  return h.slack.waitFor('chat.postMessage', (a) => a.channel === user && textOf(a.blocks).includes(words));
}

function outcomeUpdate(h: Harness, id: string, word: string) {
  return h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(word));
}

/** Clicks Reject with a live trigger, waits for the form and submits it with `reason`. */
async function rejectWithReason(h: Harness, id: string, user: string, reason: string) {
  const after = h.slack.calls.length;
  await h.click(ACTION_REJECT, id, user, undefined, { trigger: true });
  const opened = await h.slack.waitFor('views.open', () => true, { after });
  const view = opened.args.view as Record<string, unknown>;
  expect(JSON.stringify(view)).toContain(id);
  return {
    view,
    ack: await h.submitView(view, { [REJECT_BLOCK]: { value: { type: 'plain_text_input', value: reason } } }, user),
  };
}

describe('the requester is told', () => {
  it('when their request is approved and when it is applied, in that order', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const applied = await dm(h, USERS.requester, 'was applied');
    const approved = await dm(h, USERS.requester, 'was approved by');
    expect(textOf(approved.args.blocks)).toContain(`Your change request \`${id}\``);
    expect(textOf(approved.args.blocks)).toContain(`<@${USERS.approver}>`);
    expect(textOf(applied.args.blocks)).toContain(`<#${CHANNEL}>`);
    expect(h.slack.calls.indexOf(approved)).toBeLessThan(h.slack.calls.indexOf(applied));
    expect(h.slack.directMessages(USERS.requester)).toHaveLength(2);
    expect(h.slack.directMessages(USERS.approver)).toHaveLength(0);
  });

  it('when it failed, with why', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-refused');
    h.simulator.faults.failNext(1, 403, { on: 'PATCH' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const failed = await dm(h, USERS.requester, 'was not applied');
    expect(textOf(failed.args.blocks)).toContain(id);
  });

  it('when it is rejected, with the reason typed in the Reject form, also shown in the channel and kept', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-nope');
    const empty = await rejectWithReason(h, id, USERS.approver, '   ');
    const errors = (JSON.parse(empty.ack.body) as { errors: Record<string, string> }).errors;
    expect(errors[REJECT_BLOCK]).toContain('The reason is empty');
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');

    const { ack } = await rejectWithReason(h, id, USERS.approver, 'Use the <!here> staging *copy* instead');
    expect(ack.body).toBe('');
    const record = await outcomeUpdate(h, id, 'Rejected');
    expect(textOf(record.args.blocks)).toContain(`*Rejected* by <@${USERS.approver}>`);
    expect(textOf(record.args.blocks)).toContain('“Use the &lt;!here&gt; staging ∗copy∗ instead”');
    const told = await dm(h, USERS.requester, 'was rejected');
    expect(textOf(told.args.blocks)).toContain('“Use the &lt;!here&gt; staging ∗copy∗ instead”');
    const stored = await h.bot.changeStore.get(id);
    expect(stored).toMatchObject({
      status: 'rejected',
      decidedBy: USERS.approver,
      outcome: { rejectedBecause: 'Use the <!here> staging *copy* instead' },
    });
    const audit = await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.ordersStaging, limit: 5 });
    expect(audit.find((e) => e.action === 'rejected')?.message).toBe('Reason: Use the <!here> staging *copy* instead');
    expect(await answerText(h, await h.command('history'))).toContain('Reason: Use the &lt;!here&gt; staging');
    expect(h.simulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
  });

  it('a second rejection through a form opened at the same time changes nothing and says so privately', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-twice');
    const opened = async (user: string) => {
      const after = h.slack.calls.length;
      await h.click(ACTION_REJECT, id, user, undefined, { trigger: true });
      return (await h.slack.waitFor('views.open', () => true, { after })).args.view as Record<string, unknown>;
    };
    const first = await opened(USERS.approver);
    const second = await opened(USERS.second);
    const reason = (text: string) => ({ [REJECT_BLOCK]: { value: { type: 'plain_text_input', value: text } } });
    await h.submitView(first, reason('first'), USERS.approver);
    await outcomeUpdate(h, id, 'Rejected');
    await h.submitView(second, reason('second'), USERS.second);
    const answer = await h.slack.waitFor(
      'chat.postEphemeral',
      (a) => a.user === USERS.second && textOf(a.blocks).includes('already settled'),
    );
    expect(answer.args.channel).toBe(CHANNEL);
    expect((await h.bot.changeStore.get(id))?.outcome?.rejectedBecause).toBe('first');
    expect(h.slack.directMessages(USERS.requester).filter((m) => m.text.includes('was rejected'))).toHaveLength(1);
  });

  it('opens no form for someone whose Reject would not count, and says why at once', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-mine');
    const ack = await h.click(ACTION_REJECT, id, USERS.requester, undefined, { trigger: true });
    expect(await answerText(h, ack)).toContain('your own request');
    expect(h.slack.callsOf('views.open')).toHaveLength(0);
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');
  });

  it('without a usable trigger, Reject rejects at once as before (no reason)', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-direct');
    await h.click(ACTION_REJECT, id, USERS.approver);
    await outcomeUpdate(h, id, 'Rejected');
    const told = await dm(h, USERS.requester, 'was rejected');
    expect(textOf(told.args.blocks)).not.toContain('“');
    expect((await h.bot.changeStore.get(id))?.outcome?.rejectedBecause).toBeUndefined();
  });

  it('a click without any trigger_id rejects at once, opening no form', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-bare');
    const { payload } = clickPayload(h.slack, ACTION_REJECT, id, USERS.approver);
    const { trigger_id: _dropped, ...bare } = payload;
    const body = new URLSearchParams({ payload: JSON.stringify(bare) }).toString();
    const timestamp = Math.floor(Date.now() / 1000).toString();
    const ack = await h.raw(body, {
      'content-type': 'application/x-www-form-urlencoded',
      ...signatureHeaders(body, timestamp),
    });
    expect(ack.status).toBe(200);
    await outcomeUpdate(h, id, 'Rejected');
    expect(h.slack.callsOf('views.open')).toHaveLength(0);
  });

  it('when it expired (noticed by the first click after its expiry)', async () => {
    let skew = 0;
    const h = await harness({ clock: () => Date.now() + skew });
    const { id } = await requestChange(h, 'rename orders-staging orders-late');
    skew = 2 * 60 * 60 * 1000;
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await dm(h, USERS.requester, 'expired before it was approved');
  });

  it('when their temporary change was reverted by the bot', async () => {
    let skew = 0;
    const h = await harness({ clock: () => Date.now() + skew });
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.45/32 hotel for 1m');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await dm(h, USERS.requester, 'was applied');
    skew = 61_000;
    const reverted = await dm(h, USERS.requester, 'Your temporary change');
    expect(textOf(reverted.args.blocks)).toContain(`\`${id}\``);
    expect(textOf(reverted.args.blocks)).toContain(`${id}-R`);
  });

  it('a DM Slack refuses (user deactivated) is logged and changes nothing', async () => {
    const h = await harness();
    h.slack.failingChannels.set(USERS.requester, 'user_disabled');
    const { id } = await requestChange(h, 'rename orders-staging orders-quiet');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await outcomeUpdate(h, id, 'Applied');
    expect((await h.bot.changeStore.get(id))?.status).toBe('applied');
    await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === USERS.requester && textOf(a.blocks).includes('was applied'),
    );
    await expect
      .poll(() => h.logs.some((l) => l.includes(`change ${id}: could not tell its requester it was applied`)))
      .toBe(true);
  });
});
