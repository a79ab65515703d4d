/**
 * Scheduled changes (`at TIME`, issue 26) end to end: the real bot over signed HTTP, real Redis,
 * the simulator. The bot's clock is moved forward instead of waiting for the time; Redis, leases
 * and the API run in real time.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_CANCEL } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  CHANNEL,
  MINUTE,
  movableClock,
  requestChange,
  startHarness,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
  withSharedBackends,
} from './harness.js';

const harness = useHarnesses({ temporaryTickMs: 50 });
const SOURCE = '192.0.2.77';

const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');
const hasEntry = (h: Harness, source = SOURCE) =>
  h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.some((e) => e.source.startsWith(source)) ?? false;

/** `at YYYY-MM-DD HH:MM tz:UTC` for the whole minute `minutes` after the clock's now, and that instant. */
function atMinutesFromNow(now: number, minutes: number): { words: string; at: number } {
  const at = Math.ceil((now + minutes * MINUTE) / MINUTE) * MINUTE;
  const iso = new Date(at).toISOString();
  return { words: `at ${iso.slice(0, 10)} ${iso.slice(11, 16)} tz:UTC`, at };
}

/** Files `ip add … at TIME` and approves it; resolves once its message says it is scheduled. */
async function scheduled(h: Harness, clock: { now: () => number }, minutes: number, source = SOURCE) {
  const when = atMinutesFromNow(clock.now(), minutes);
  const { id, posted } = await requestChange(h, `ip add orders-prod ${source} vendor ${when.words}`);
  expect(textOf(posted.args.blocks)).toContain(`applies at <!date^${when.at / 1000}^{date_short_pretty} {time}|`);
  const click = await h.click(ACTION_APPROVE, id, USERS.approver);
  expect(await answerText(h, click)).toContain('Approved');
  // The requester hears it was approved, and when it applies (not that it is being applied).
  await expect.poll(() => toldRequester(h)).toContain(`${id}\``);
  const told = toldRequester(h);
  expect(told).toMatch(
    new RegExp(`${id}.*was approved by <@${USERS.approver}>; it applies at <!date\\^${when.at / 1000}`),
  );
  await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Scheduled'));
  expect(await h.bot.changeStore.get(id)).toMatchObject({ status: 'scheduled', applyAt: when.at, expiresAt: when.at });
  return { id, at: when.at };
}

/** Every DM the requester got so far, as text. */
const toldRequester = (h: Pick<Harness, 'slack'>) =>
  h.slack
    .directMessages(USERS.requester)
    .map((m) => textOf(m.blocks))
    .join('\n');

const messageSays = (h: Harness, id: string, words: string) =>
  h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(words));

describe('a scheduled change', () => {
  it('is approved now and applied at its time by exactly one of two replicas', async () => {
    await withSharedBackends(async ({ simulator, slack, keyPrefix }) => {
      const clock = movableClock();
      const a = await harness({ clock: clock.now, simulator, slack, keyPrefix });
      const b = await harness({ clock: clock.now, simulator, slack, keyPrefix });
      const { id, at } = await scheduled(a, clock, 30);
      // Approved, not applied: nothing was sent, and `pending` lists it with its time.
      expect(patches(a)).toHaveLength(0);
      const pending = await a.command('pending');
      expect(await answerText(a, pending)).toMatch(new RegExp(`${id}.*approved, applies at <!date\\^`));
      // The requester's Home tab lists it among their open requests, with its time (a Home is
      // drawn for people who open it: #29).
      await a.event({ type: 'app_home_opened', user: USERS.requester, channel: 'D0REQUESTER', tab: 'home' });
      await expect
        .poll(() => textOf(slack.homes.get(USERS.requester)))
        .toMatch(new RegExp(`${id}[^\\n]*approved, applies at <!date\\^${at / 1000}`));

      clock.advance(31 * MINUTE);
      await messageSays(a, id, 'Applied');
      expect(hasEntry(a)).toBe(true);
      // Both replicas look every 50 ms; give the loser time to (not) send.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(patches(a)).toHaveLength(1);
      expect(await a.bot.changeStore.get(id)).toMatchObject({ status: 'applied', decidedBy: USERS.approver });
      await expect.poll(() => toldRequester({ slack })).toContain('applied');
      expect([...a.logs, ...b.logs].join('\n')).not.toMatch(/(WARN|ERROR).*CR-/);
    });
  });

  it('due while every replica was down: applied when one starts within SCHEDULED_GRACE, expired (and said) after it', async () => {
    await withSharedBackends(async ({ simulator, slack, keyPrefix }) => {
      const clock = movableClock();
      // Started outside useHarnesses: stopped here, before the times come.
      const first = await startHarness({
        clock: clock.now,
        simulator,
        slack,
        keyPrefix,
        env: { SCHEDULED_GRACE: '15m' },
      });
      const missed = await scheduled(first, clock, 10, '192.0.2.78');
      const caught = await scheduled(first, clock, 30, '192.0.2.79');
      await first.stop();

      // 21 minutes after the first one's time (past the grace), 1 minute after the second's.
      clock.advance(31 * MINUTE);
      const second = await harness({ clock: clock.now, simulator, slack, keyPrefix, env: { SCHEDULED_GRACE: '15m' } });
      await second.bot.scheduledAtStart;
      await expect.poll(async () => (await second.bot.changeStore.get(caught.id))?.status).toBe('applied');
      expect(hasEntry(second, '192.0.2.79')).toBe(true);

      expect(await second.bot.changeStore.get(missed.id)).toMatchObject({ status: 'expired', decidedBy: 'the bot' });
      expect(hasEntry(second, '192.0.2.78')).toBe(false);
      const expired = await messageSays(second, missed.id, 'Expired');
      expect(textOf(expired.args.blocks)).toContain('the bot was not running then nor within 15 minutes after');
      await expect
        .poll(() => toldRequester({ slack }))
        .toMatch(new RegExp(`${missed.id}.* expired: It was to apply at .*SCHEDULED_GRACE`));
      expect(patches(second)).toHaveLength(1);
    });
  });

  it('refused as stale at its time when the service moved since it was approved, saying what changed', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await scheduled(h, clock, 5);
    // The very entry it adds, listed in the console meanwhile (another entry would not matter).
    h.simulator.changeOutsideBot(DEMO_IDS.ordersProd, {
      ipAccessList: [{ source: SOURCE, description: 'added in the console' }],
    });
    clock.advance(6 * MINUTE);
    const stale = await messageSays(h, id, 'Not applied');
    expect(textOf(stale.args.blocks)).toContain('The service changed since this request was made (IP access)');
    expect(patches(h)).toHaveLength(0);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList).toStrictEqual([
      { source: SOURCE, description: 'added in the console' },
    ]);
    await expect.poll(() => toldRequester(h)).toContain(id);
  });

  it('someone who may approve it may call it off before its time; the requester is told who; nobody else may', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now, env: { APPROVERS: USERS.approver } });
    const { id } = await scheduled(h, clock, 5);
    const refused = await answerText(h, await h.click(ACTION_CANCEL, id, USERS.outsider));
    expect(refused).toContain('only the person who asked for it or someone who may approve it');
    // Reject does nothing on an approved scheduled change: the refusal must not send them there.
    expect(refused).not.toContain('Reject');
    await h.click(ACTION_CANCEL, id, USERS.approver);
    await messageSays(h, id, 'Cancelled');
    await expect.poll(() => toldRequester(h)).toContain(`was cancelled by <@${USERS.approver}> before its time`);
    clock.advance(6 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await h.bot.changeStore.get(id)).toMatchObject({ status: 'cancelled', decidedBy: USERS.approver });
    const [entry] = await h.bot.changeStore.readAudit({ limit: 1 });
    expect(entry).toMatchObject({ action: 'cancelled', actorId: USERS.approver, changeId: id });
    expect(patches(h)).toHaveLength(0);
  });

  it('its requester may cancel it until it starts; then nothing is applied', async () => {
    const clock = movableClock();
    const h = await harness({ clock: clock.now });
    const { id } = await scheduled(h, clock, 5);
    await h.click(ACTION_CANCEL, id, USERS.requester);
    await messageSays(h, id, 'Cancelled');
    clock.advance(6 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await h.bot.changeStore.get(id)).toMatchObject({ status: 'cancelled', decidedBy: USERS.requester });
    expect(patches(h)).toHaveLength(0);
  });

  it('reads at TIME in the channel time zone (CHANNEL_TIMEZONES), else the requester’s Slack time zone', async () => {
    const h = await harness({ env: { CHANNEL_TIMEZONES: `${CHANNEL}=Europe/Berlin` } });
    const inChannel = await h.command(`ip add orders-prod ${SOURCE} vendor at 09:00`, USERS.requester);
    expect(await answerText(h, inChannel)).toMatch(
      /Once approved it applies at \d{4}-\d\d-\d\d 09:00 Europe\/Berlin \(this channel's time zone\)/,
    );

    h.slack.userTimeZones.set(USERS.second, 'America/New_York');
    const elsewhere = await h.command(`ip add orders-prod 192.0.2.80 vendor at monday 06:00`, USERS.second, 'C0OTHER');
    expect(await answerText(h, elsewhere)).toMatch(/06:00 America\/New_York \(your Slack time zone\)/);

    const wrong = await h.command(`ip add orders-prod 192.0.2.81 vendor at 2026-02-30 09:00`, USERS.requester);
    expect(await answerText(h, wrong)).toContain(
      'is not a date on the calendar. Write the time as at 2026-12-01 09:00',
    );
  });
});

/** The edit form of orders-prod, as the bot put it in the modal. */
async function editForm(h: Harness): Promise<Record<string, unknown>> {
  await h.command('edit orders-prod');
  const opened = await h.slack.waitFor('views.update', (a) => textOf(a.view).includes('Request change'));
  return opened.args.view as Record<string, unknown>;
}

/** An IP entry to add and a picked time, in view.state.values as Slack sends them. */
const formValues = (source: string, seconds: number | null) => ({
  [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: `${source} vendor` } },
  [BLOCK.applyAt]: { value: { type: 'datetimepicker', selected_date_time: seconds } },
});

/** A bot on a movable clock with the edit form open, and a whole minute about `minutes` ahead (Unix seconds). */
async function editFormPicking(minutes: number) {
  const clock = movableClock();
  const h = await harness({ clock: clock.now });
  const view = await editForm(h);
  const seconds = Math.ceil((clock.now() + minutes * MINUTE) / MINUTE) * 60;
  return { clock, h, view, seconds };
}

const errorsOf = (ack: { body: string }) => (JSON.parse(ack.body) as { errors: Record<string, string> }).errors;

describe('the edit form’s Apply at', () => {
  it('files the change for the picked time: approved now, applied at that time only', async () => {
    const { clock, h, view, seconds } = await editFormPicking(30);
    const after = h.slack.calls.length;
    const ack = await h.submitView(view, formValues(SOURCE, seconds), USERS.requester);
    expect(ack.body).toBe('');
    const posted = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes('Change request'),
      { after },
    );
    expect(textOf(posted.args.blocks)).toContain(`applies at <!date^${seconds}^{date_short_pretty} {time}|`);
    const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    expect(await h.bot.changeStore.get(id)).toMatchObject({
      status: 'pending',
      applyAt: seconds * 1000,
      expiresAt: seconds * 1000,
    });

    expect(await answerText(h, await h.click(ACTION_APPROVE, id, USERS.approver))).toContain('Approved');
    await messageSays(h, id, 'Scheduled');
    expect(await h.bot.changeStore.get(id)).toMatchObject({ status: 'scheduled', applyAt: seconds * 1000 });

    // A minute before its time: still waiting, nothing sent.
    clock.advance(seconds * 1000 - clock.now() - MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await h.bot.changeStore.get(id)).toMatchObject({ status: 'scheduled' });
    expect(patches(h)).toHaveLength(0);
    expect(hasEntry(h)).toBe(false);

    clock.advance(2 * MINUTE);
    await messageSays(h, id, 'Applied');
    expect(hasEntry(h)).toBe(true);
    expect(patches(h)).toHaveLength(1);
    expect(await h.bot.changeStore.get(id)).toMatchObject({ status: 'applied', decidedBy: USERS.approver });
  });

  it('with For how long, as at TIME with for: in force from its time for that long, then reverted', async () => {
    const { clock, h, view, seconds } = await editFormPicking(10);
    const after = h.slack.calls.length;
    const values = {
      ...formValues(SOURCE, seconds),
      [BLOCK.duration]: { value: { type: 'static_select', selected_option: { value: '1h' } } },
    };
    expect((await h.submitView(view, values, USERS.requester)).body).toBe('');
    const posted = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes('Change request'),
      { after },
    );
    const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    expect(await h.bot.changeStore.get(id)).toMatchObject({
      applyAt: seconds * 1000,
      temporary: { durationMs: 3_600_000 },
    });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await messageSays(h, id, 'Scheduled');
    clock.advance(seconds * 1000 - clock.now() + MINUTE);
    await messageSays(h, id, 'Applied');
    expect(hasEntry(h)).toBe(true);
    // The hour counts from when it was applied, not from when it was asked.
    clock.advance(58 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hasEntry(h)).toBe(true);
    clock.advance(3 * MINUTE);
    await expect.poll(() => hasEntry(h), { timeout: 10_000 }).toBe(false);
  });

  it('a time that has passed is refused under the field, in the person’s time zone, and nothing is filed', async () => {
    const h = await harness();
    h.slack.userTimeZones.set(USERS.requester, 'Europe/Berlin');
    const view = await editForm(h);
    const after = h.slack.calls.length;
    // 2026-01-01 00:00 UTC.
    const ack = await h.submitView(view, formValues(SOURCE, 1767225600), USERS.requester);
    expect(ack.elapsedMs).toBeLessThan(3_000);
    expect(errorsOf(ack)).toStrictEqual({
      [BLOCK.applyAt]:
        '2026-01-01 01:00 Europe/Berlin has passed. Pick a time in the future, or leave Apply at empty to have it applied as soon as it is approved.',
    });
    // Left empty, the same form files an ordinary request (no time).
    const plain = await h.submitView(view, formValues(SOURCE, null), USERS.requester);
    expect(plain.body).toBe('');
    const posted = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes('Change request'),
      { after },
    );
    expect(textOf(posted.args.blocks)).not.toContain('applies at');
    expect(h.slack.callsOf('chat.postMessage').filter((c) => h.slack.calls.indexOf(c) >= after)).toHaveLength(1);
  });
});
