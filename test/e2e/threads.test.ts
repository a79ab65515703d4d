/**
 * Where the bot's messages go (issue 41, "Channels and threads"), over Slack's wire: a change is one
 * message at the top level of its channel, updated in place with its outcome; the service record
 * and every follow-up (state moves, reverts, reminders) are replies in its thread; a reminder DM
 * names the service and the change, links to the request and carries its working buttons.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_REJECT } from '../../src/core/render/change.js';
import { ACTION_EXTEND } from '../../src/core/render/temporary.js';
import { PROGRESS_BLOCK } from '../../src/core/render/follow.js';
import type { SlackCall } from '../../src/playground/slack-stand-in.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  CHANNEL,
  MINUTE,
  messageTsOf,
  movableClock,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const DBAS = 'C0DBAS';
const harness = useHarnesses({ temporaryTickMs: 50, nudgeTickMs: 50 });
const policyFile = usePolicyFiles();

/** What the bot posted at the top level of a channel (not in a thread, not a DM). */
const topLevel = (h: Harness, channel: string) =>
  h.slack.callsOf('chat.postMessage', (a) => a.channel === channel && a.thread_ts === undefined);

/** The service record the bot posts once a change is applied. */
const recordOf = (h: Harness, id: string) =>
  h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes(`after change ${id}`));

const progressLine = (call: SlackCall | undefined) =>
  textOf(
    (Array.isArray(call?.args.blocks) ? (call.args.blocks as Array<{ block_id?: string }>) : []).filter(
      (b) => b.block_id === PROGRESS_BLOCK,
    ),
  );

describe('a change in the channel', () => {
  it('is one top-level message, updated with its outcome; the service record is in its thread', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver, ts);
    const applied = await h.slack.waitFor(
      'chat.update',
      (a) => a.ts === ts && a.channel === CHANNEL && textOf(a.blocks).includes('Applied.'),
    );
    expect(textOf(applied.args.blocks)).toContain(`Request \`${id}\``);
    const record = await recordOf(h, id);
    expect(record.args).toMatchObject({ channel: CHANNEL, thread_ts: ts });
    expect(textOf(record.args.blocks)).toContain('orders-stage');
    await h.bot.changeRequests.drain();
    expect(topLevel(h, CHANNEL)).toHaveLength(1);
  });

  it('decided in an approval channel: the record goes in the thread of the requester channel message', async () => {
    const policy = `rules:\n  - name: dbas decide\n    match: {}\n    approvals: 1\n    channel: ${DBAS}\n`;
    const h = await harness({ env: { POLICY_FILE: policyFile(policy) } });
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.approvalTs).toBeDefined();
    const stored = await h.bot.changeStore.get(id);
    await h.click(ACTION_APPROVE, id, USERS.approver, stored?.approvalTs, { channel: DBAS });
    const record = await recordOf(h, id);
    expect(record.args).toMatchObject({ channel: CHANNEL, thread_ts: stored?.messageTs });
    for (const channel of [DBAS, CHANNEL])
      await h.slack.waitFor(
        'chat.update',
        (a) => a.channel === channel && textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied.'),
      );
    await h.bot.changeRequests.drain();
    expect(topLevel(h, CHANNEL)).toHaveLength(1);
    expect(topLevel(h, DBAS)).toHaveLength(1);
  });

  it('a temporary grant: its record, the revert time, the revert and its record all stay in its thread', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.44/32 hotel for 1m');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver, ts);
    await h.slack.waitFor('chat.postMessage', (a) => a.thread_ts === ts && textOf(a.blocks).includes('reverts'));
    clock.advance(MINUTE + 1_000);
    const revert = await recordOf(h, `${id}-R`);
    expect(revert.args.thread_ts).toBe(ts);
    // The original's message says it was reverted, in place.
    await h.slack.waitFor('chat.update', (a) => a.ts === ts && textOf(a.blocks).includes(`${id}-R`));
    await h.bot.changeRequests.drain();
    const inChannel = h.slack.callsOf('chat.postMessage', (a) => a.channel === CHANNEL);
    expect(inChannel.length).toBeGreaterThanOrEqual(5);
    // Only the request itself is at the top level.
    expect(inChannel.filter((c) => c.args.thread_ts !== ts)).toStrictEqual([inChannel[0]]);
  });
  it("an Extend waiting for approval is reminded of in its original's thread, where it was posted", async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.44/32 hotel for 2h');
    const ts = await messageTsOf(h, id);
    await h.click(ACTION_APPROVE, id, USERS.approver, ts);
    await h.slack.waitFor('chat.postMessage', (a) => a.thread_ts === ts && textOf(a.blocks).includes('reverts'));
    await h.click(ACTION_EXTEND, id, USERS.requester, ts);
    const extension = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.thread_ts === ts && textOf(a.blocks).includes(`Revert of ${id}`),
    );
    const extensionId = /Request `(CR-[0-9A-F]{10})`/.exec(textOf(extension.args.blocks))?.[1] ?? '';
    await expect.poll(async () => (await h.bot.changeStore.get(extensionId))?.messageTs).toBeDefined();
    expect(await messageTsOf(h, extensionId)).not.toBe(ts);
    clock.advance(31 * MINUTE);
    const reminder = await h.slack.waitFor(
      'chat.postMessage',
      (a) => textOf(a.blocks).includes('still waits') && textOf(a.blocks).includes(extensionId),
    );
    expect(reminder.args).toMatchObject({ channel: CHANNEL, thread_ts: ts });
    expect(topLevel(h, CHANNEL)).toHaveLength(1);
  });
});

describe('a stop', () => {
  it('ends saying where the service is, on the request in both channels, with the record in the thread', async () => {
    const policy = `rules:\n  - name: dbas decide\n    match: {}\n    approvals: 1\n    channel: ${DBAS}\n`;
    const h = await harness({
      env: { POLICY_FILE: policyFile(policy) },
      simulatorTransitionMs: 300,
      followSchedule: { firstMs: 50, factor: 1.5, maxMs: 200 },
    });
    const { id } = await requestChange(h, 'stop orders-prod');
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.approvalTs).toBeDefined();
    const stored = await h.bot.changeStore.get(id);
    await h.click(ACTION_APPROVE, id, USERS.approver, stored?.approvalTs, { channel: DBAS });
    for (const [channel, ts] of [
      [CHANNEL, stored?.messageTs],
      [DBAS, stored?.approvalTs],
    ] as const)
      await h.slack.waitFor(
        'chat.update',
        (a) =>
          a.channel === channel && a.ts === ts && progressLine({ method: '', args: a, at: 0 }).includes('is stopped,'),
      );
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.state).toBe('stopped');
    // The last word on each message is where the service ended up, not "stopping".
    for (const [channel, ts] of [
      [CHANNEL, stored?.messageTs],
      [DBAS, stored?.approvalTs],
    ] as const) {
      const last = h.slack.callsOf('chat.update', (a) => a.channel === channel && a.ts === ts).at(-1);
      expect(progressLine(last)).toMatch(/:white_check_mark: \*orders-prod\* `[0-9a-f-]+` is stopped, \d+ s after/);
    }
    const record = await recordOf(h, id);
    expect(record.args.thread_ts).toBe(stored?.messageTs);
    await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.thread_ts === stored?.messageTs && textOf(a.blocks).includes('is stopped,'),
    );
    expect(topLevel(h, CHANNEL)).toHaveLength(1);
  });
});

describe('a reminder DM', () => {
  const DM_POLICY =
    'rules:\n  - name: dbas first\n    match: {}\n    approvals: 1\n    approvers: [U0APPROVER]\n    remind: 10m\n';

  async function remindedRequest(h: Harness, clock: ReturnType<typeof movableClock>) {
    const { id } = await requestChange(h, 'rename orders-staging orders-stage');
    const ts = await messageTsOf(h, id);
    clock.advance(11 * MINUTE);
    const dm = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === USERS.approver && textOf(a.blocks).includes('still waits'),
    );
    return { id, ts, dm };
  }

  it('names the service and the change, links to the request, and its Approve works as in the channel', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now, env: { POLICY_FILE: policyFile(DM_POLICY) } });
    const { id, ts, dm } = await remindedRequest(h, clock);
    const text = textOf(dm.args.blocks);
    expect(text).toMatch(/\(\*orders-staging\* `[0-9a-f-]+`: [^)]*[Nn]ame[^)]*\) still waits for approval after 11m/);
    expect(text).toContain(
      `<${h.slack.url}/archives/${CHANNEL}/p${ts.replace('.', '')}|Open the request> in <#${CHANNEL}>`,
    );
    // The channel's buttons: the same action ids, the request's id as their value.
    const buttons = JSON.stringify(dm.args.blocks);
    for (const action of [ACTION_APPROVE, ACTION_REJECT]) expect(buttons).toContain(`"action_id":"${action}"`);
    expect(buttons).toContain(`"value":"${id}"`);
    expect(h.slack.callsOf('chat.getPermalink')).toHaveLength(1);

    const posted = h.slack.messages.find((m) => m.directTo === USERS.approver && m.text.includes('still waits'));
    await h.click(ACTION_APPROVE, id, USERS.approver, posted?.ts, { channel: 'D0APPROVER' });
    await h.slack.waitFor(
      'chat.update',
      (a) => a.ts === ts && a.channel === CHANNEL && textOf(a.blocks).includes('Applied.'),
    );
    expect(h.simulator.service(DEMO_IDS.ordersStaging)?.name).toBe('orders-stage');
    // The reminder is a copy of the request: once applied it shows so, without live buttons.
    await h.slack.waitFor(
      'chat.update',
      (a) =>
        a.ts === posted?.ts &&
        textOf(a.blocks).includes('Applied.') &&
        !JSON.stringify(a.blocks).includes(ACTION_APPROVE),
    );
  });

  it('without a link from Slack says where the request is, and still carries the buttons', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now, env: { POLICY_FILE: policyFile(DM_POLICY) } });
    h.slack.failingPermalinks.set(CHANNEL, 'channel_not_found');
    const { id, dm } = await remindedRequest(h, clock);
    const text = textOf(dm.args.blocks);
    expect(text).toContain(`Slack gave no link to the request: it is in <#${CHANNEL}>`);
    expect(text).not.toContain('Open the request');
    expect(JSON.stringify(dm.args.blocks)).toContain(`"value":"${id}"`);
    expect(h.logs.join('\n')).toContain('no link to its message for the reminder');
  });
});

describe('a summary', () => {
  it('is one top-level headline (totals, warnings, changes); per-service lines and spend are in its thread', async () => {
    const h = await harness();
    await h.command('summary');
    const headline = await h.slack.waitFor(
      'chat.postMessage',
      (a) =>
        a.channel === CHANNEL && a.thread_ts === undefined && String(a.text).startsWith('ClickHouse Cloud summary:'),
    );
    const ts = h.slack.messages.find((m) => m.channel === CHANNEL && m.text === headline.args.text)?.ts;
    await h.slack.waitFor('chat.postMessage', (a) => a.thread_ts === ts && textOf(a.blocks).includes('*Spend* of'));
    const head = textOf(headline.args.blocks);
    expect(head).toContain('12 services in the organization');
    expect(head).toContain(':warning: 5 warnings on 4 services');
    expect(head).toContain('First summary: changes are reported from the next one');
    expect(head).not.toContain('*Spend*');
    expect(head).not.toContain('• *orders-prod* ·');
    const replies = h.slack.callsOf('chat.postMessage', (a) => a.channel === CHANNEL && a.thread_ts === ts);
    expect(replies.map((r) => textOf(r.args.blocks)).join('\n')).toContain('• *orders-prod* ·');
    expect(topLevel(h, CHANNEL)).toStrictEqual([headline]);
  });
});
