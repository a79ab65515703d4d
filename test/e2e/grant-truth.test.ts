/**
 * What the bot says about a temporary change is what happens to it (issue 35, points 6, 7 and 9),
 * end to end: the real bot over signed HTTP, real Redis, the simulator and the Slack stand-in.
 * Reverts are due on the bot's movable clock; everything else runs in real time.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW, ACTION_UNDO } from '../../src/core/render/temporary.js';
import {
  answerText,
  messageTsOf,
  movableClock,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
  MINUTE,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const GRANT = '192.0.2.44/32';
const harness = useHarnesses({ temporaryTickMs: 50 });
const policyFile = usePolicyFiles();

const AUTO_IP_AND_BREAKGLASS = `breakglass: [U0REQUESTER]
rules:
  - name: ip access on its own
    match: { changes: [ip-access] }
    approvals: 0
`;

/** `<!date^SECONDS^…>`: how a time is written for Slack to show in the reader's zone. */
const slackTime = (ms: number) => `<!date^${Math.floor(ms / 1000)}^`;

function threadPost(h: Harness, threadTs: string, word: string) {
  return h.slack.waitFor('chat.postMessage', (a) => a.thread_ts === threadTs && textOf(a.blocks).includes(word));
}

/** A one-minute IP grant, approved and applied; resolves once its revert is announced in the thread. */
async function grant(h: Harness) {
  const { id } = await requestChange(h, `ip add orders-prod ${GRANT} hotel for 1m`);
  const ts = await messageTsOf(h, id);
  await h.click(ACTION_APPROVE, id, USERS.approver);
  await threadPost(h, ts, 'reverts');
  const dueAt = await h.bot.changeStore.revertDueAt(id);
  if (dueAt === undefined) throw new Error(`${id} has no revert scheduled`);
  return { id, ts, dueAt };
}

describe('Extend (issue 35, point 6)', () => {
  it('moves the revert by its duration from the planned time, and says exactly that', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id, ts, dueAt } = await grant(h);
    clock.advance(40_000);
    await h.click(ACTION_EXTEND, id, USERS.requester);
    const extension = await threadPost(h, ts, `Revert of ${id}`);
    const said = textOf(extension.args.blocks);
    expect(said).toContain(new Date(dueAt + MINUTE).toISOString().slice(11, 16));
    expect(said).toContain('1m later than planned');
    expect(said).not.toContain('after the approval');
    const extensionId = /CR-[0-9A-F]{10}/.exec(said.replaceAll(id, ''))?.[0] ?? '';
    clock.advance(11_000); // the approval comes a while after the click
    await h.click(ACTION_APPROVE, extensionId, USERS.approver);
    const extended = await threadPost(h, ts, 'Extended');
    expect(await h.bot.changeStore.revertDueAt(id)).toBe(dueAt + MINUTE);
    expect(textOf(extended.args.blocks)).toContain(slackTime(dueAt + MINUTE));
  });

  it('is offered by `temporary` beside Revert now', async () => {
    const h = await harness();
    const { id } = await grant(h);
    const listed = await answerText(h, await h.command('temporary'));
    expect(listed).toContain(ACTION_EXTEND);
    expect(listed).toContain(id);
  });
});

describe('the revert time of a temporary change (issue 35, point 9)', () => {
  it('`temporary` and the Home tab say the bot reverts it at a time to come, not that it was reverted', async () => {
    const h = await harness();
    const { dueAt } = await grant(h);
    const listed = await answerText(h, await h.command('temporary'));
    expect(listed).toContain(`the bot reverts it ${slackTime(dueAt)}`);
    expect(listed).not.toContain('reverted <!date');
    const after = h.slack.calls.length;
    await h.event({ type: 'app_home_opened', user: USERS.requester, channel: 'D0REQUESTER', tab: 'home' });
    const home = await h.slack.waitFor('views.publish', (a) => a.user_id === USERS.requester, { after });
    expect(textOf(home.args.view)).toContain(`the bot reverts it ${slackTime(dueAt)}`);
    expect(textOf(home.args.view)).not.toContain('reverted <!date');
  });

  it.each([
    ['auto-approved', `ip add orders-prod ${GRANT} hotel for 1h`],
    ['break-glass', `breakglass ip add orders-prod ${GRANT} hotel for 1h because "INC-7 dashboards down"`],
  ])('%s: the request never says "if approved now", and once applied says its thread has the time', async (_, text) => {
    const h = await harness({ env: { POLICY_FILE: policyFile(AUTO_IP_AND_BREAKGLASS) } });
    const after = h.slack.calls.length;
    await h.command(text);
    const applied = await h.slack.waitFor(
      'chat.update',
      (a) => a.channel === 'C0CHANNEL' && textOf(a.blocks).includes('was applied, without approval'),
      { after },
    );
    expect(textOf(applied.args.blocks)).toContain('its thread says when');
    const shown = h.slack.calls
      .slice(after)
      .filter((c) => c.method === 'chat.postMessage' || c.method === 'chat.update');
    expect(shown.map((c) => textOf(c.args.blocks)).join('\n')).not.toContain('if approved now');
  });

  it('an approved request says "if approved now" only while it waits', async () => {
    const h = await harness();
    const { id, ts } = await grant(h);
    const message = await h.slack.waitFor(
      'chat.update',
      (a) => a.ts === ts && textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'),
    );
    expect(textOf(message.args.blocks)).not.toContain('if approved now');
    expect(textOf(message.args.blocks)).toContain('was applied, without approval: its thread says when');
  });
});

describe('a revert says who asked for it and when (issue 35, point 7)', () => {
  it('Revert now: named as asked by its clicker, never "at its expiry" nor "Approved by"', async () => {
    const h = await harness();
    const { id, ts } = await grant(h);
    await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    const revert = await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(`${id}-R`) && textOf(a.blocks).includes('Applied'),
    );
    const said = textOf(revert.args.blocks);
    expect(said).toContain(`asked by <@${USERS.requester}> with Revert now at <!date^`);
    expect(said).toContain(`Revert now by <@${USERS.requester}>, without approval`);
    expect(said).not.toContain('at its expiry');
    expect(said).not.toContain('Approved by');

    // The grant's own message is marked reverted and loses Undo.
    const original = await h.slack.waitFor('chat.update', (a) => a.ts === ts && textOf(a.blocks).includes('Reverted'));
    expect(textOf(original.args.blocks)).toContain(`*Reverted* by \`${id}-R\`, asked by <@${USERS.requester}>`);
    expect(JSON.stringify(original.args.blocks)).not.toContain(ACTION_UNDO);
  });

  it('at its time: filed by the bot; an Undo afterwards says the bot took it back, not "by hand"', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id, ts } = await grant(h);
    clock.advance(MINUTE + 1_000);
    const revert = await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(`${id}-R`) && textOf(a.blocks).includes('Applied'),
    );
    expect(textOf(revert.args.blocks)).toContain('filed by the bot at its time');
    expect(textOf(revert.args.blocks)).toContain('Reverted by the bot at its time, without approval');
    await h.slack.waitFor('chat.update', (a) => a.ts === ts && textOf(a.blocks).includes('Reverted'));

    const undo = await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
    expect(undo).toContain(`the bot already took this temporary change back with \`${id}-R\``);
    expect(undo).not.toContain('by hand');
  });

  it('an Undo of a scale its Revert now took back says the bot did it, not "changed by hand"', async () => {
    const h = await harness({ simulatorTransitionMs: 200 });
    const { id } = await requestChange(h, 'scale orders-prod replicas 6 for 1h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status, { timeout: 10_000 }).toBe('applied');
    await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    await expect
      .poll(async () => (await h.bot.changeStore.get(`${id}-R`))?.status, { timeout: 10_000 })
      .toBe('applied');
    const undo = await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
    expect(undo).toContain(`the bot already took this temporary change back with \`${id}-R\``);
    expect(undo).not.toContain('by hand');
  });
});
