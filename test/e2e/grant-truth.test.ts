/**
 * What the bot says about a temporary change is what happens to it (issue 35, points 6, 7 and 9),
 * end to end: the real bot over signed HTTP, real Redis, the simulator and the Slack stand-in.
 * Reverts are due on the bot's movable clock; everything else runs in real time.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_EXTEND } from '../../src/core/render/temporary.js';
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

const GRANT = '192.0.2.44/32';
const harness = useHarnesses({ temporaryTickMs: 50 });

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
