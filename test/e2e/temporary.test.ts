/**
 * Temporary changes that undo themselves, and Undo (issue 14), end to end: the real bot over
 * signed HTTP, real Redis, the simulator. The bot's clock is moved forward instead of waiting a
 * minute (reverts are due on the approval flow's clock, which tests may override); everything
 * else (Redis, leases, the API) runs in real time.
 */
import { describe, expect, it, vi } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { ACTION_EXTEND, ACTION_REVERT_NOW, ACTION_UNDO } from '../../src/core/render/temporary.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  startHarness,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
  MINUTE,
  movableClock,
  messageTsOf,
  withSharedBackends,
} from './harness.js';

const GRANT = '192.0.2.44/32';

const harness = useHarnesses({ temporaryTickMs: 50 });

const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');
const entryOf = (h: Harness, source = GRANT) =>
  h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.find((e) => e.source === source);

/** The next post in the thread whose text contains `word`. */
function threadPost(h: Harness, threadTs: string, word: string, timeoutMs = 10_000) {
  return h.slack.waitFor('chat.postMessage', (a) => a.thread_ts === threadTs && textOf(a.blocks).includes(word), {
    timeoutMs,
  });
}

/** Requests a temporary grant and approves it; resolves once its revert is scheduled in the thread. */
async function grant(h: Harness, text = `ip add orders-prod ${GRANT} hotel for 1m`) {
  const { id, posted } = await requestChange(h, text);
  expect(textOf(posted.args.blocks)).toContain('Temporary:* for 1m');
  const ts = await messageTsOf(h, id);
  await h.click(ACTION_APPROVE, id, USERS.approver);
  const scheduled = await threadPost(h, ts, 'reverts');
  expect(textOf(scheduled.args.blocks)).toContain(id);
  return { id, ts };
}

describe('a temporary IP grant', () => {
  it('is removed when its minute is up, once, and the thread and the audit trail say so', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id, ts } = await grant(h);
    expect(entryOf(h)).toEqual({ source: GRANT, description: 'hotel' });
    const listed = await answerText(h, await h.command('temporary'));
    expect(listed).toContain(id);

    clock.advance(MINUTE + 1_000);
    const revertPost = await threadPost(h, ts, 'Revert of the temporary change');
    expect(textOf(revertPost.args.blocks)).toContain(`${id}-R`);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(`${id}-R`) && textOf(a.blocks).includes('Applied'),
    );
    expect(entryOf(h)).toBeUndefined();
    expect(patches(h).map((p) => p.body)).toEqual([
      { ipAccessList: { add: [{ source: GRANT, description: 'hotel' }] } },
      { ipAccessList: { remove: [{ source: GRANT }] } },
    ]);
    const revert = await h.bot.changeStore.get(`${id}-R`);
    expect(revert).toMatchObject({ status: 'applied', decidedBy: 'the bot', threadTs: ts, revertOf: id });
    const audit = await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.ordersProd, limit: 20 });
    expect(audit.filter((e) => e.changeId === `${id}-R`).map((e) => e.action)).toEqual([
      'applied',
      'approved',
      'requested',
    ]);
    expect(await answerText(h, await h.command('temporary'))).toContain('No temporary change is active');
    // Later looks find nothing more to do.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(patches(h)).toHaveLength(2);
  });

  it("is removed when a minute has passed on the bot's own clock (the system time), not before", async () => {
    // No clock is handed to the bot: it reads Date.now, as in production. Only Date is faked, so
    // the system time can jump a minute while timers, sockets and Redis keep running in real time.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      const h = await harness();
      const { id, ts } = await grant(h);
      const appliedAt = Date.now();
      let reverted = false;
      void threadPost(h, ts, 'Revert of the temporary change', 20_000).then(
        () => (reverted = true),
        () => undefined,
      );
      // Two seconds short of the minute, several ticks find nothing due yet.
      vi.setSystemTime(appliedAt + MINUTE - 2_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reverted).toBe(false);
      expect(entryOf(h)).toEqual({ source: GRANT, description: 'hotel' });

      vi.setSystemTime(appliedAt + MINUTE + 1_000);
      await threadPost(h, ts, 'Revert of the temporary change');
      await h.slack.waitFor(
        'chat.update',
        (a) => textOf(a.blocks).includes(`${id}-R`) && textOf(a.blocks).includes('Applied'),
      );
      expect(Date.now() - appliedAt).toBeGreaterThanOrEqual(MINUTE);
      expect(entryOf(h)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('is left alone when someone removed it before expiry, and the thread says what the bot found', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id, ts } = await grant(h);
    const others = h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.filter((e) => e.source !== GRANT) ?? [];
    h.simulator.changeOutsideBot(DEMO_IDS.ordersProd, { ipAccessList: others });

    clock.advance(MINUTE + 1_000);
    const note = await threadPost(h, ts, 'left the service as it is');
    expect(textOf(note.args.blocks)).toContain(`${GRANT} is no longer in the IP access list`);
    expect(patches(h)).toHaveLength(1);
    await expect.poll(async () => (await h.bot.changeStore.get(`${id}-R`))?.status).toBe('failed');
    const audit = await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.ordersProd, limit: 20 });
    expect(audit.find((e) => e.changeId === `${id}-R` && e.action === 'stale')?.message).toContain(
      'no longer in the IP access list',
    );
  });

  it('says its revert is overdue, since when, while the API refuses it, and not after it is done', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await grant(h);
    const planned = await h.bot.changeStore.revertDueAt(id);
    h.simulator.faults.failNext(1, 500, { on: 'PATCH' });
    clock.advance(MINUTE + 1_000);
    await expect.poll(async () => (await h.bot.changeStore.get(`${id}-R`))?.status).toBe('failed');
    await expect.poll(async () => (await h.bot.changeStore.scheduledReverts())[0]?.overdueSince).toBe(planned);

    const listed = await answerText(h, await h.command('temporary'));
    expect(listed).toContain('revert overdue* since');
    expect(listed).toContain(`<!date^${Math.floor((planned ?? 0) / 1000)}^`);
    expect(listed).not.toMatch(/ · reverted </);
    await h.event({ type: 'app_home_opened', user: USERS.requester, tab: 'home' });
    const home = await h.slack.waitFor('views.publish', (a) => textOf(a.view).includes('revert overdue'));
    expect(textOf(home.args.view)).toContain(id);

    // The next try (the back-off's first step) works: nothing is left to list.
    clock.advance(MINUTE);
    await expect
      .poll(async () => (await h.bot.changeStore.get(`${id}-R2`))?.status, { timeout: 10_000 })
      .toBe('applied');
    expect(await answerText(h, await h.command('temporary'))).toContain('No temporary change is active');
  });

  it('is not called overdue when a Revert now clicked before its time fails (review: a future "overdue since")', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await grant(h);
    const planned = (await h.bot.changeStore.revertDueAt(id)) ?? 0;
    h.simulator.faults.failNext(1, 500, { on: 'PATCH' });
    const click = await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    expect(await answerText(h, click)).toContain('again');
    await expect.poll(async () => (await h.bot.changeStore.get(`${id}-R`))?.status).toBe('failed');
    // The retry (5 s) comes before the minute is up: the revert was asked early, it is not late.
    await expect.poll(async () => (await h.bot.changeStore.scheduledReverts())[0]?.dueAt).toBeLessThan(planned);
    const [scheduled] = await h.bot.changeStore.scheduledReverts();
    expect(scheduled?.overdueSince ?? 0).toBeLessThanOrEqual(clock.now());
    const listed = await answerText(h, await h.command('temporary'));
    expect(listed).not.toContain(`<!date^${Math.floor(planned / 1000)}^`);
  });

  it('is reverted by exactly one of two replicas', async () => {
    await withSharedBackends(async ({ clock, simulator, slack, keyPrefix }) => {
      const a = await harness({ clock: clock.now, simulator, slack, keyPrefix });
      const b = await harness({ clock: clock.now, simulator, slack, keyPrefix });
      const { id, ts } = await grant(a);
      clock.advance(MINUTE + 1_000);
      await a.slack.waitFor(
        'chat.update',
        (x) => textOf(x.blocks).includes(`${id}-R`) && textOf(x.blocks).includes('Applied'),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(patches(a).filter((p) => JSON.stringify(p.body).includes('remove'))).toHaveLength(1);
      expect(
        slack.callsOf(
          'chat.postMessage',
          (x) => x.thread_ts === ts && textOf(x.blocks).includes('Revert of the temporary change'),
        ),
      ).toHaveLength(1);
      expect([...a.logs, ...b.logs].join('\n')).not.toMatch(/(WARN|ERROR).*(temporary change|CR-)/);
    });
  });

  it('due while the bot was stopped, is reverted once when it starts again', async () => {
    await withSharedBackends(async ({ clock, simulator, slack, keyPrefix }) => {
      // Started outside useHarnesses: it is stopped here, before the expiry.
      const first = await startHarness({ clock: clock.now, simulator, slack, keyPrefix, temporaryTickMs: 3_600_000 });
      const { id } = await grant(first);
      await first.stop();
      clock.advance(5 * MINUTE);
      const second = await harness({ clock: clock.now, simulator, slack, keyPrefix, temporaryTickMs: 3_600_000 });
      await second.bot.revertedAtStart;
      expect((await second.bot.changeStore.get(`${id}-R`))?.status).toBe('applied');
      expect(patches(second).filter((p) => JSON.stringify(p.body).includes('remove'))).toHaveLength(1);
      expect(entryOf(second)).toBeUndefined();
    });
  });
});

describe('reminder, Extend and Revert now', () => {
  it('reminds at half-time of a short grant; Revert now by the requester takes it back at once', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id, ts } = await grant(h);
    clock.advance(31_000);
    const reminder = await threadPost(h, ts, 'Revert now');
    expect(textOf(reminder.args.blocks)).toContain(`<@${USERS.requester}>`);

    const click = await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    expect(await answerText(h, click)).toContain('Reverted');
    expect(entryOf(h)).toBeUndefined();
    expect(await h.bot.changeStore.get(`${id}-R`)).toMatchObject({ status: 'applied', decidedBy: USERS.requester });
    const again = await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    expect(await answerText(h, again)).toContain('already reverted');
    expect(patches(h)).toHaveLength(2);
  });

  it('refuses Revert now from someone who is neither the requester nor an approver', async () => {
    const h = await harness({ env: { APPROVERS: USERS.approver } });
    const { id } = await grant(h);
    const click = await h.click(ACTION_REVERT_NOW, id, USERS.outsider);
    expect(await answerText(h, click)).toContain('Only the requester or an approver');
    expect(entryOf(h)).toBeDefined();
  });

  it('Extend files a request in the thread; once approved the revert moves by the same duration', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id, ts } = await grant(h);
    clock.advance(40_000);
    const click = await h.click(ACTION_EXTEND, id, USERS.requester);
    expect(await answerText(h, click)).toContain('posted in the thread');
    const extension = await threadPost(h, ts, `Revert of ${id}`);
    const extensionId = /CR-[0-9A-F]{10}/.exec(textOf(extension.args.blocks).replaceAll(id, ''))?.[0];
    expect(extensionId).toBeDefined();
    await h.click(ACTION_APPROVE, extensionId ?? '', USERS.approver);
    await threadPost(h, ts, 'Extended');
    expect(patches(h)).toHaveLength(1);

    clock.advance(30_000); // past the original expiry, within the extension
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(entryOf(h)).toBeDefined();
    clock.advance(MINUTE);
    await threadPost(h, ts, 'Revert of the temporary change');
    await expect.poll(() => entryOf(h)).toBeUndefined();
  });
});

describe('durations', () => {
  it.each([
    [`ip add orders-prod ${GRANT} for 30s`, 'not a duration'],
    [`ip add orders-prod ${GRANT} for 0m`, 'at least 1 minute'],
    [`ip add orders-prod ${GRANT} for 8d`, 'at most 7d'],
    [`ip add orders-prod ${GRANT} for soon`, 'not a duration'],
    ['endpoint orders-prod mysql off for 2h', 'Only switching MySQL on can be temporary'],
    ['ip add orders-prod 203.0.113.0/24 for 2h', 'already in the IP access list'],
  ])('%s is refused with a sentence', async (text, sentence) => {
    const h = await harness();
    const answer = await answerText(h, await h.command(text));
    expect(answer).toContain(sentence);
    expect(await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).toHaveLength(0);
  });

  it('TEMPORARY_MAX_SECONDS sets the longest grant', async () => {
    const h = await harness({ env: { TEMPORARY_MAX_SECONDS: '3600' } });
    expect(await answerText(h, await h.command(`ip add orders-prod ${GRANT} for 2h`))).toContain('at most 1h');
    const { posted } = await requestChange(h, 'endpoint orders-prod mysql on for 1h');
    expect(textOf(posted.args.blocks)).toContain('Temporary:* for 1h');
  });
});

describe('the edit modal', () => {
  async function openedView(h: Harness) {
    await h.command('edit orders-prod');
    return (await h.slack.waitFor('views.update')).args.view as Record<string, unknown>;
  }
  const duration = (value: string) => ({
    [BLOCK.duration]: { value: { type: 'static_select', selected_option: { value } } },
  });

  it('makes IP additions temporary with "for how long"', async () => {
    const h = await harness();
    const view = await openedView(h);
    const ack = await h.submitView(
      view,
      { [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: `${GRANT} partner` } }, ...duration('2h') },
      USERS.requester,
    );
    expect(ack.body).toBe('');
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'));
    expect(textOf(posted.args.blocks)).toContain('Temporary:* for 2h');
    const [pending] = await h.bot.changeStore.listPending('C0CHANNEL', Date.now());
    expect(pending?.temporary?.durationMs).toBe(2 * 3600_000);
  });

  it('refuses a duration for a change that cannot be temporary, inline', async () => {
    const h = await harness();
    const view = await openedView(h);
    const ack = await h.submitView(
      view,
      { [BLOCK.name]: { value: { type: 'plain_text_input', value: 'orders renamed' } }, ...duration('1h') },
      USERS.requester,
    );
    expect((JSON.parse(ack.body) as { errors: Record<string, string> }).errors[BLOCK.duration]).toContain(
      'Only ip add',
    );
    const forged = await h.submitView(
      view,
      { [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: GRANT } }, ...duration('30d') },
      USERS.requester,
    );
    expect((JSON.parse(forged.body) as { errors: Record<string, string> }).errors[BLOCK.duration]).toContain(
      'at most 7d',
    );
    expect(h.slack.callsOf('chat.postMessage')).toHaveLength(0);
  });
});

describe('Undo', () => {
  it.each([
    ['rename orders-staging "orders stage"', DEMO_IDS.ordersStaging],
    ['ip add sandbox-dev 192.0.2.0/24 lab network', DEMO_IDS.sandboxDev],
    ['ip remove sandbox-dev 203.0.113.0/24', DEMO_IDS.sandboxDev],
    ['endpoint sandbox-dev mysql on', DEMO_IDS.sandboxDev],
    ['release-channel orders-prod fast', DEMO_IDS.ordersProd],
    ['private-endpoint attach search-prod pe-azure-search-eastus2-a', DEMO_IDS.searchProd],
    ['private-endpoint detach metrics-prod vpce-0a1b2c3d4e5f60001', DEMO_IDS.metricsProd],
    ['rotate-key orders-prod tde-key-2026-11', DEMO_IDS.ordersProd],
  ])('%s, undone and approved, puts the service back', async (text, serviceId) => {
    const h = await harness();
    const before = structuredClone(h.simulator.service(serviceId));
    const { id } = await requestChange(h, text);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const applied = await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'),
    );
    expect(JSON.stringify(applied.args.blocks)).toContain(ACTION_UNDO);

    const after = h.slack.calls.length;
    const undo = await h.click(ACTION_UNDO, id, USERS.second);
    expect(await answerText(h, undo)).toContain('is posted in the thread');
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    const undoId = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    await h.click(ACTION_APPROVE, undoId, USERS.approver);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(undoId) && textOf(a.blocks).includes('Applied'),
    );
    const now = h.simulator.service(serviceId);
    for (const field of [
      'name',
      'ipAccessList',
      'endpoints',
      'releaseChannel',
      'privateEndpointIds',
      'transparentDataEncryptionKeyId',
    ] as const) {
      expect(normalized(now?.[field])).toEqual(normalized(before?.[field]));
    }
  });

  it('drops the parts already undone, and says so when nothing is left', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging "orders stage"');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    h.simulator.changeOutsideBot(DEMO_IDS.ordersStaging, { name: 'orders-staging' });
    const undo = await h.click(ACTION_UNDO, id, USERS.requester);
    expect(await answerText(h, undo)).toContain('Nothing is left to undo');
    expect(await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).toHaveLength(0);
  });
});

/** Order-insensitive view of a field: lists sorted by their JSON. */
function normalized(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((v) => JSON.stringify(v)).sort();
}
