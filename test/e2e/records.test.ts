/**
 * The record says what happened, the same way to everyone (issue 35, item 11): the audit and
 * `history` never read a break-glass review as applying a change nor an approver as the cause of
 * a stale request, and a request with a time reads "applies at" to its approvers as to its requester.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, CHANNEL, MINUTE, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { BREAKGLASS_PROD, usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ env: { APPROVERS: USERS.approver } });
const policyFile = usePolicyFiles();

const messageSays = (h: Harness, id: string, words: string) =>
  h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(words));

/** The history line of one request's entry with this action word, and the detail line under it. */
function entryOf(history: string, id: string, words: string): string {
  const lines = history.split('\n');
  const at = lines.findIndex((line) => line.includes(words) && line.includes(`\`${id}\``));
  return at === -1 ? '' : `${lines[at]}\n${lines[at + 1] ?? ''}`;
}

describe('the record of a request', () => {
  it('logs marking a break-glass review as a review, not as applying the change', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(BREAKGLASS_PROD) } });
    const answer = await answerText(
      h,
      await h.command('breakglass ip add orders-prod 203.0.113.9 laptop for 1h because "INC-7"', USERS.requester),
    );
    const id = /CR-[0-9A-F]{10}/.exec(answer)?.[0] ?? '';
    const reviewId = `${id}-B`;
    await expect.poll(async () => (await h.bot.changeStore.get(reviewId))?.status).toBe('pending');
    await h.click(ACTION_APPROVE, reviewId, USERS.approver);
    await messageSays(h, reviewId, 'Reviewed');

    const history = await answerText(h, await h.command('history orders-prod'));
    const marked = entryOf(history, reviewId, `approved by <@${USERS.approver}>`);
    expect(marked).toContain('marked reviewed; nothing is sent to ClickHouse Cloud');
    expect(marked).not.toContain('applying the change');
    const [approved] = (await h.bot.changeStore.readAudit({ channelId: CHANNEL, limit: 20 })).filter(
      (e) => e.changeId === reviewId && e.action === 'approved',
    );
    expect(approved?.message).not.toContain('applying the change');
  });

  it('does not read a stale request as caused by the approver whose click found it stale', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename search-prod search');
    h.simulator.changeOutsideBot(DEMO_IDS.searchProd, { name: 'search-renamed-in-console' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await messageSays(h, id, 'Not applied');

    const history = await answerText(h, await h.command('history search-prod'));
    expect(history).toContain(`approved by <@${USERS.approver}> \`${id}\``);
    expect(history).not.toContain(`stale by <@${USERS.approver}>`);
    expect(entryOf(history, id, 'not applied, found stale')).toContain('changed since this request was made');
  });

  it('tells approvers on their Home tab when a request with a time applies, as its requester is told', async () => {
    const h = await harness();
    const at = Math.ceil((Date.now() + 90 * MINUTE) / MINUTE) * MINUTE;
    const iso = new Date(at).toISOString();
    const { id } = await requestChange(
      h,
      `ip add orders-prod 192.0.2.77 vendor at ${iso.slice(0, 10)} ${iso.slice(11, 16)} tz:UTC`,
    );
    const seen = async (user: string) => {
      const after = h.slack.calls.length;
      await h.event({ type: 'app_home_opened', user, channel: `D${user.slice(1)}`, tab: 'home' });
      const published = await h.slack.waitFor('views.publish', (a) => a.user_id === user, { after });
      return textOf(published.args.view);
    };
    const applies = `applies at <!date^${at / 1000}^`;
    const approverSees = await seen(USERS.approver);
    expect(approverSees).toContain(id);
    expect(approverSees).toContain(applies);
    expect(approverSees).not.toMatch(/expires <!date/);
    expect(await seen(USERS.requester)).toContain(applies);
  });
});
