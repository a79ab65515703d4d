/**
 * Maintenance windows, freezes and break-glass (issue 26) end to end: the real bot over signed
 * HTTP, real Redis, the simulator and the Slack stand-in. The bot's clock is set to the moment a
 * test needs (a Friday, a day in the year-end freeze) and moved forward instead of waiting.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_CANCEL } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { ACTION_EXTEND } from '../../src/core/render/temporary.js';
import {
  answerText,
  CHANNEL,
  MINUTE,
  movableClock,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ temporaryTickMs: 50, nudgeTickMs: 50 });
const policyFile = usePolicyFiles();
const SECURITY = 'C0SECURITY';

const POLICY = `breakglass: [U0REQUESTER, S0ONCALL]
breakglass_max: 2h
rules:
  - name: production
    match: { tags: { env: prod } }
    approvals: 1
    approvers: [U0APPROVER]
    window: { days: [mon, tue, wed, thu], from: "09:00", to: "16:00", tz: Europe/Berlin }
    freeze: [{ from: 2026-12-20, to: 2027-01-04, reason: "Year-end freeze" }]
  - name: never open prod
    match: { tags: { env: prod }, risks: [world-open] }
    deny: Never open production to the internet.
  - name: dev nights
    match: { tags: { env: dev } }
    approvals: 0
    window: { days: [fri], from: "22:00", to: "02:00", tz: UTC }
`;

/** A bot under POLICY whose clock reads `iso` now (and runs on from there). */
async function botAt(iso: string): Promise<{ h: Harness; clock: ReturnType<typeof movableClock> }> {
  const clock = movableClock();
  clock.advance(Date.parse(iso) - clock.now());
  const h = await harness({ clock: clock.now, env: { POLICY_FILE: policyFile(POLICY), SECURITY_CHANNEL: SECURITY } });
  return { h, clock };
}

const hasEntry = (h: Harness, source: string) =>
  h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.some((e) => e.source.startsWith(source)) ?? false;
const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');
const messageSays = (h: Harness, id: string, words: string) =>
  h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(words));
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('a maintenance window', () => {
  it('refuses an Extend clicked after the window closed: deferred, it would come after the revert it should push back', async () => {
    const { h, clock } = await botAt('2026-11-26T14:00:00Z'); // a Thursday, 15:00 in Berlin: open
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.81 vendor for 3h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await messageSays(h, id, 'Applied');
    clock.advance(65 * MINUTE); // 16:05 in Berlin: closed until Monday
    const extend = await h.click(ACTION_EXTEND, id, USERS.requester);
    expect(await answerText(h, extend)).toContain(
      'An extension can only be asked while its window is open (*production*: Mon–Thu 09:00–16:00 Berlin)',
    );
    expect(hasEntry(h, '192.0.2.81')).toBe(true);
  });

  it('defers a change asked outside it to the next opening, says so, and applies it then', async () => {
    const { h, clock } = await botAt('2026-11-27T10:00:00Z'); // a Friday
    const { id, ack } = await requestChange(h, 'ip add orders-prod 192.0.2.80 vendor');
    const answer = await answerText(h, ack);
    // Monday 09:00 in Berlin is 08:00 UTC in November.
    expect(answer).toContain(
      `*production* changes are applied Mon–Thu 09:00–16:00 Berlin; this will apply at <!date^${seconds('2026-11-30T08:00:00Z')}^`,
    );
    expect(answer).toContain('unless you cancel');
    expect(await h.bot.changeStore.get(id)).toMatchObject({ applyAt: Date.parse('2026-11-30T08:00:00Z') });

    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(await answerText(h, click)).toContain('Approved');
    await messageSays(h, id, 'Scheduled');
    expect(hasEntry(h, '192.0.2.80')).toBe(false);

    clock.advance(Date.parse('2026-11-30T08:01:00Z') - clock.now());
    await messageSays(h, id, 'Applied');
    expect(hasEntry(h, '192.0.2.80')).toBe(true);
  });

  it('defers a change no rule asks approval for just the same: scheduled at once, applied at the opening', async () => {
    const { h, clock } = await botAt('2026-11-27T10:00:00Z'); // Friday morning: the night window opens at 22:00
    const answer = await answerText(h, await h.command('ip add sandbox-dev 192.0.2.83 vendor'));
    expect(answer).toContain(
      `*dev nights* changes are applied Fri 22:00–02:00 UTC; this will apply at <!date^${seconds('2026-11-27T22:00:00Z')}^`,
    );
    const id = /CR-[0-9A-F]{10}/.exec(answer)?.[0] ?? '';
    await expect.poll(async () => (await h.bot.changeStore.get(id))?.status).toBe('scheduled');
    clock.advance(Date.parse('2026-11-27T22:00:30Z') - clock.now());
    await messageSays(h, id, 'Applied');
  });

  it('schedules a change asked inside it but approved after it closed for the next opening', async () => {
    const { h, clock } = await botAt('2026-11-26T14:50:00Z'); // Thursday 15:50 in Berlin
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.84 vendor');
    clock.advance(20 * MINUTE); // 16:10: closed until Monday
    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(await answerText(h, click)).toContain('Approved');
    await messageSays(h, id, 'Scheduled');
    expect(await h.bot.changeStore.get(id)).toMatchObject({
      status: 'scheduled',
      applyAt: Date.parse('2026-11-30T08:00:00Z'),
    });
    expect(hasEntry(h, '192.0.2.84')).toBe(false);
    clock.advance(Date.parse('2026-11-30T08:00:30Z') - clock.now());
    await messageSays(h, id, 'Applied');
    expect(hasEntry(h, '192.0.2.84')).toBe(true);
  });

  it('gives a change asked just before the opening the usual time to be approved, not until the opening', async () => {
    const { h, clock } = await botAt('2026-11-30T07:58:00Z'); // Monday 08:58 in Berlin: opens in 2 minutes
    const { id, ack } = await requestChange(h, 'ip add orders-prod 192.0.2.85 vendor');
    expect(await answerText(h, ack)).toContain(`this will apply at <!date^${seconds('2026-11-30T08:00:00Z')}^`);
    clock.advance(7 * MINUTE); // 09:05: the approver had a coffee; the window is open
    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(click.status).toBe(200);
    await messageSays(h, id, 'Applied');
    expect(hasEntry(h, '192.0.2.85')).toBe(true);
  });

  it('lets a change inside it through at once; policy SERVICE shows it open with its closing time', async () => {
    const { h } = await botAt('2026-11-24T10:00:00Z'); // Tuesday 11:00 in Berlin
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.82 vendor');
    expect((await h.bot.changeStore.get(id))?.applyAt).toBeUndefined();
    const policy = await answerText(h, await h.command('policy orders-prod'));
    expect(policy).toContain('*production*: applied Mon–Thu 09:00–16:00 Berlin (open now, until <!date^');
    expect(policy).toContain('freezes to come: 2026-12-20 to 2027-01-04 (Year-end freeze)');
    const rules = await answerText(h, await h.command('policy'));
    expect(rules).toContain('applied Mon–Thu 09:00–16:00 Berlin; frozen 2026-12-20 to 2027-01-04 (Year-end freeze)');
    expect(rules).toContain(
      `Break-glass: <@${USERS.requester}>, <!subteam^S0ONCALL> may apply a temporary change at once (at most 2h)`,
    );
  });
});

describe('the edit form’s Apply at, under windows and freezes as at TIME', () => {
  it('moves a picked time outside the window to its next opening, and refuses one in a freeze', async () => {
    const { h } = await botAt('2026-12-07T10:00:00Z'); // a Monday, 11:00 in Berlin: open
    await h.command('edit orders-prod');
    const opened = await h.slack.waitFor('views.update', (a) => textOf(a.view).includes('Request change'));
    const view = opened.args.view as Record<string, unknown>;
    const form = (source: string, iso: string) => ({
      [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: `${source} vendor` } },
      [BLOCK.applyAt]: { value: { type: 'datetimepicker', selected_date_time: seconds(iso) } },
    });
    const requestsOf = (source: string) =>
      h.slack.callsOf(
        'chat.postMessage',
        (a) =>
          a.channel === CHANNEL && textOf(a.blocks).includes('Change request') && textOf(a.blocks).includes(source),
      );

    // Friday 11:00 in Berlin is outside Mon–Thu: moved to Monday 09:00 Berlin (08:00 UTC), and said so.
    let after = h.slack.calls.length;
    expect((await h.submitView(view, form('192.0.2.84', '2026-12-11T10:00:00Z'), USERS.requester)).body).toBe('');
    const deferred = await h.slack.waitFor('chat.postEphemeral', (a) => a.user === USERS.requester, { after });
    expect(textOf(deferred.args.blocks)).toContain(`this will apply at <!date^${seconds('2026-12-14T08:00:00Z')}^`);
    const [posted] = requestsOf('192.0.2.84');
    const id = /CR-[0-9A-F]{10}/.exec(textOf(posted?.args.blocks))?.[0] ?? '';
    expect(await h.bot.changeStore.get(id)).toMatchObject({ applyAt: Date.parse('2026-12-14T08:00:00Z') });

    // Monday 2026-12-21 is in the year-end freeze: refused, nothing filed.
    after = h.slack.calls.length;
    expect((await h.submitView(view, form('192.0.2.85', '2026-12-21T10:00:00Z'), USERS.requester)).body).toBe('');
    const frozen = await h.slack.waitFor('chat.postEphemeral', (a) => a.user === USERS.requester, { after });
    expect(textOf(frozen.args.blocks)).toContain('are frozen until');
    expect(textOf(frozen.args.blocks)).toContain('Year-end freeze');
    expect(requestsOf('192.0.2.85')).toHaveLength(0);
  });
});

describe('a freeze', () => {
  it('refuses a new change with its reason, but a temporary grant from before is still reverted', async () => {
    const { h, clock } = await botAt('2026-12-17T10:00:00Z'); // Thursday, inside the window
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.81 vendor for 3d');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await messageSays(h, id, 'Applied');
    expect(hasEntry(h, '192.0.2.81')).toBe(true);

    // Three days on: 2026-12-20 in Berlin, frozen; the grant's revert falls due.
    clock.advance(3 * 24 * 60 * MINUTE + MINUTE);
    await expect.poll(() => hasEntry(h, '192.0.2.81'), { timeout: 10_000 }).toBe(false);
    await expect.poll(async () => (await h.bot.changeStore.get(`${id}-R`))?.status).toBe('applied');

    const refused = await answerText(h, await h.command('rename orders-prod orders-main'));
    expect(refused).toContain('Changes under the policy rule *production* are frozen until <!date^');
    expect(refused).toContain('“Year-end freeze”. Nothing was requested.');
    expect(h.slack.callsOf('chat.postMessage', (a) => textOf(a.blocks).includes('orders-main'))).toHaveLength(0);

    const policy = await answerText(h, await h.command('policy orders-prod'));
    expect(policy).toContain(`frozen until <!date^${seconds('2027-01-04T23:00:00Z')}^`);
    expect(policy).toMatch(/closed now; next opening <!date\^\d+/);
  });
});

describe('break-glass', () => {
  it('applies at once in a freeze, says so loudly, and stays open until an approver marks it reviewed', async () => {
    const { h, clock } = await botAt('2026-12-22T10:00:00Z'); // Tuesday, frozen
    const ack = await h.command(
      'breakglass ip add orders-prod 203.0.113.9 laptop for 1h because "INC-7 dashboards down"',
      USERS.requester,
    );
    const answer = await answerText(h, ack);
    expect(answer).toMatch(/Break-glass `CR-[0-9A-F]{10}` was applied without approval/);
    const id = /CR-[0-9A-F]{10}/.exec(answer)?.[0] ?? '';
    expect(hasEntry(h, '203.0.113.9')).toBe(true);
    expect(patches(h)).toHaveLength(1);

    // Loud: the security channel hears who, what and why.
    const notice = await h.slack.waitFor('chat.postMessage', (a) => a.channel === SECURITY);
    expect(textOf(notice.args.blocks)).toContain(`<@${USERS.requester}> changed`);
    expect(textOf(notice.args.blocks)).toContain('“INC-7 dashboards down”');
    expect(textOf(notice.args.blocks)).toContain('203.0.113.9');
    // The channel's request says break-glass, who, and why; and not approved.
    const posted = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === CHANNEL && textOf(a.blocks).includes(id),
    );
    expect(textOf(posted.args.blocks)).toContain(`<@${USERS.requester}> broke glass to change`);
    expect(textOf(posted.args.blocks)).toContain('*Reason:* “INC-7 dashboards down”');
    await messageSays(h, id, 'Break-glass by');

    // The review waits in the request's thread, with a Mark reviewed button.
    const reviewId = `${id}-B`;
    const review = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes(reviewId));
    expect(review.args.thread_ts).toBe((await h.bot.changeStore.get(id))?.messageTs);
    expect(JSON.stringify(review.args.blocks)).toContain('Mark reviewed');

    // Not by whoever broke the glass, nor by someone who could not approve the change.
    expect(await answerText(h, await h.click(ACTION_APPROVE, reviewId, USERS.requester))).toContain(
      'Nothing was changed',
    );
    expect(await answerText(h, await h.click(ACTION_APPROVE, reviewId, USERS.outsider))).toContain(
      'Nothing was changed',
    );
    expect((await h.bot.changeStore.get(reviewId))?.status).toBe('pending');

    // Unreviewed, it is reminded like any waiting request (the default 30 minutes).
    clock.advance(31 * MINUTE);
    const reminded = (a: Record<string, unknown>) =>
      textOf(a.blocks).includes(`${reviewId}\``) && textOf(a.blocks).includes('still waits for review of break-glass');
    const inThread = await h.slack.waitFor('chat.postMessage', (a) => a.channel === CHANNEL && reminded(a));
    expect(inThread.args.thread_ts).toBeDefined();
    // …and its reviewers are messaged directly.
    await h.slack.waitFor('chat.postMessage', (a) => a.channel === USERS.approver && reminded(a));

    await h.click(ACTION_APPROVE, reviewId, USERS.approver);
    await messageSays(h, reviewId, 'Reviewed');
    expect(await h.bot.changeStore.get(reviewId)).toMatchObject({ status: 'applied', decidedBy: USERS.approver });
    expect(patches(h)).toHaveLength(1);

    const audit = await h.bot.changeStore.readAudit({ channelId: CHANNEL, limit: 20 });
    expect(audit.map((e) => `${e.changeId} ${e.action}`)).toEqual(
      expect.arrayContaining([`${id} break-glass`, `${id} applied`, `${reviewId} reviewed`]),
    );
    const history = await answerText(h, await h.command('history orders-prod'));
    expect(history).toContain(`*BREAK-GLASS* applied without approval by <@${USERS.requester}> \`${id}\``);
    expect(history).toContain(`break-glass reviewed by <@${USERS.approver}> \`${reviewId}\``);
  });

  it('gives whoever broke the glass no Cancel for its review on their Home tab (the flow refuses it)', async () => {
    const { h } = await botAt('2026-12-22T10:00:00Z');
    const answer = await answerText(
      h,
      await h.command('breakglass ip add orders-prod 203.0.113.9 laptop for 1h because "INC-7"', USERS.requester),
    );
    const id = /CR-[0-9A-F]{10}/.exec(answer)?.[0] ?? '';
    const reviewId = `${id}-B`;
    await expect.poll(async () => (await h.bot.changeStore.get(reviewId))?.status).toBe('pending');
    const after = h.slack.calls.length;
    await h.event({ type: 'app_home_opened', user: USERS.requester, tab: 'home' });
    const published = await h.slack.waitFor(
      'views.publish',
      (a) => a.user_id === USERS.requester && textOf(a.view).includes(reviewId),
      { after },
    );
    type Button = { action_id?: string; value?: string };
    const blocks = (published.args.view as { blocks: Array<{ accessory?: Button; elements?: Button[] }> }).blocks;
    const cancels = blocks
      .flatMap((b) => [...(b.accessory ? [b.accessory] : []), ...(b.elements ?? [])])
      .filter((e) => e.action_id === ACTION_CANCEL);
    expect(cancels.map((e) => e.value)).not.toContain(reviewId);
  });

  it('counts members of a listed user group', async () => {
    const { h } = await botAt('2026-11-28T10:00:00Z'); // Saturday: outside the window
    h.slack.userGroups.set('S0ONCALL', [USERS.second]);
    const answer = await answerText(
      h,
      await h.command('breakglass ip add orders-prod 203.0.113.10 oncall for 30m because "INC-8 load"', USERS.second),
    );
    expect(answer).toContain('was applied without approval');
  });

  it("keeps to a channel's allowed kinds of change (several organizations): it skips approvals, not guardrails", async () => {
    const h = await harness({
      env: { POLICY_FILE: policyFile(POLICY) },
      organizations: [{ name: 'analytics', channels: { [CHANNEL]: {}, C0DATA: { allow: ['list', 'show'] } } }],
    });
    const answer = await answerText(
      h,
      await h.command('breakglass ip add orders-prod 203.0.113.11 x for 1h because "y"', USERS.requester, 'C0DATA'),
    );
    expect(answer).toContain('`ip-access` is not allowed in this channel');
    expect(patches(h)).toHaveLength(0);
  });

  it('is refused in a sentence: not listed, a deny rule, no reason, no for, too long', async () => {
    const { h } = await botAt('2026-12-22T10:00:00Z');
    const ask = async (text: string, user: string = USERS.requester) => answerText(h, await h.command(text, user));
    expect(await ask('breakglass ip add orders-prod 203.0.113.9 x for 1h because "y"', USERS.outsider)).toContain(
      "Only the people on the policy file's break-glass list may break glass",
    );
    expect(await ask('breakglass ip add orders-prod 0.0.0.0/0 x for 1h because "y"')).toContain(
      'Break-glass never overrides a deny rule. The policy rule *never open prod* says: Never open production to the internet.',
    );
    expect(await ask('breakglass ip add orders-prod 203.0.113.9 x for 1h')).toContain('Break-glass needs a reason');
    expect(await ask('breakglass ip add orders-prod 203.0.113.9 x because "y"')).toContain(
      'Break-glass changes are temporary: end the change with for DURATION',
    );
    expect(await ask('breakglass ip add orders-prod 203.0.113.9 x for 3h because "y"')).toContain(
      'Break-glass lasts at most 2h here (`breakglass_max`); you asked for 3h.',
    );
    expect(patches(h)).toHaveLength(0);
    expect(h.slack.callsOf('chat.postMessage', (a) => a.channel === SECURITY || a.channel === CHANNEL)).toHaveLength(0);
  });
});
