/**
 * Reasons and tickets end to end: the real bot over HTTP with real Redis, the simulator and the
 * Slack stand-in, under a POLICY_FILE whose production rule requires both.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, CHANNEL, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const POLICY = `rules:
  - name: production needs a reason and a ticket
    match: { tags: { env: prod } }
    approvals: 1
    require: { reason: true, ticket: "^[A-Z]+-[0-9]+$" }
`;

const withPolicy = () => harness({ env: { POLICY_FILE: policyFile(POLICY) } });
const posts = (h: Harness, after: number) =>
  h.slack.callsOf('chat.postMessage').filter((c) => h.slack.calls.indexOf(c) >= after);

async function editForm(h: Harness): Promise<Record<string, unknown>> {
  await h.command('edit orders-prod');
  const opened = await h.slack.waitFor('views.update', (a) => textOf(a.view).includes('Request change'));
  return opened.args.view as Record<string, unknown>;
}

function fields(given: { name: string; reason?: string; ticket?: string }): Record<string, unknown> {
  const input = (value: string) => ({ value: { type: 'plain_text_input', value } });
  return {
    [BLOCK.name]: input(given.name),
    ...(given.reason ? { [BLOCK.reason]: input(given.reason) } : {}),
    ...(given.ticket ? { [BLOCK.ticket]: input(given.ticket) } : {}),
  };
}

const errorsOf = (ack: { body: string }) => (JSON.parse(ack.body) as { errors: Record<string, string> }).errors;

describe('a rule that requires a reason and a ticket', () => {
  it('refuses a request without them, naming the rule and all it lacks at once, before anything is stored or posted', async () => {
    const h = await withPolicy();
    const before = h.slack.calls.length;
    const bare = await h.command('rename orders-prod orders-main');
    const bareText = await answerText(h, bare);
    expect(bareText).toContain(
      'The policy rule *production needs a reason and a ticket* asks for a reason and a ticket like `OPS-123` with this change. Add them after the arguments, the reason in quotes: because "why this change" ticket OPS-123. Nothing was requested.',
    );
    expect(bareText).not.toContain('[A-Z]');
    const noTicket = await h.command('rename orders-prod orders-main because "move to the new name"');
    expect(await answerText(h, noTicket)).toContain(
      'asks for a ticket like `OPS-123` with this change. Add it after the arguments: ticket OPS-123.',
    );
    const badTicket = await h.command('rename orders-prod orders-main ticket ops-12');
    const badText = await answerText(h, badTicket);
    expect(badText).toContain('asks for a reason and a ticket like `OPS-123` (`ops-12` is not in that form)');
    expect(badText).not.toContain('[A-Z]');
    const unquoted = await h.command('rename orders-prod orders-main because the new name');
    expect(await answerText(h, unquoted)).toContain(
      'Put the reason after because in quotes, like because "the new name"',
    );
    expect(posts(h, before)).toHaveLength(0);
    expect(await h.bot.changeStore.listPending(CHANNEL, Date.now())).toEqual([]);
    expect((await h.bot.changeStore.readAudit({ channelId: CHANNEL, limit: 10 })).length).toBe(0);
  });

  it('with both, posts them (escaped) in the request, pending, history and the audit', async () => {
    const h = await withPolicy();
    const { id, posted } = await requestChange(
      h,
      'rename orders-prod orders-main because "INC-7 rollback <!channel> *now*" ticket OPS-42',
    );
    const message = textOf(posted.args.blocks);
    expect(message).toContain('*Reason:* “INC-7 rollback &lt;!channel&gt; ∗now∗”');
    expect(message).toContain('*Ticket:* `OPS-42`');
    const stored = await h.bot.changeStore.get(id);
    expect(stored).toMatchObject({ reason: 'INC-7 rollback <!channel> *now*', ticket: 'OPS-42' });

    const pending = await h.command('pending');
    const pendingText = await answerText(h, pending);
    expect(pendingText).toContain('because “INC-7 rollback &lt;!channel&gt; ∗now∗”');
    expect(pendingText).toContain('ticket `OPS-42`');

    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    const audit = await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.ordersProd, limit: 10 });
    expect(audit.find((e) => e.action === 'requested')).toMatchObject({
      changeId: id,
      reason: 'INC-7 rollback <!channel> *now*',
      ticket: 'OPS-42',
    });
    const history = await h.command('history orders-main');
    const shown = await answerText(h, history);
    expect(shown).toContain('because “INC-7 rollback &lt;!channel&gt; ∗now∗”');
    expect(shown).toContain('ticket `OPS-42`');
  });

  it('policy and policy SERVICE show what the rule requires', async () => {
    const h = await withPolicy();
    const all = await answerText(h, await h.command('policy'));
    expect(all).toContain('and a reason and a ticket matching `^[A-Z]+-[0-9]+$`');
    const one = await answerText(h, await h.command('policy orders-prod'));
    expect(one).toContain('and a reason and a ticket matching `^[A-Z]+-[0-9]+$`');
  });

  it('the edit form takes Reason and Ticket; a missing one is shown in the form, nothing posted', async () => {
    const h = await withPolicy();
    const view = await editForm(h);
    const before = h.slack.calls.length;
    const badTicket = await h.submitView(view, fields({ name: 'orders main', ticket: 'OPS 42' }), USERS.requester);
    expect(errorsOf(badTicket)[BLOCK.ticket]).toContain('without spaces');
    const neither = await h.submitView(view, fields({ name: 'orders main' }), USERS.requester);
    expect(errorsOf(neither)).toStrictEqual({
      [BLOCK.reason]: 'The policy rule "production needs a reason and a ticket" asks for a reason with this change.',
      [BLOCK.ticket]: 'The policy rule "production needs a reason and a ticket" asks for a ticket like OPS-123.',
    });
    const wrongTicket = await h.submitView(
      view,
      fields({ name: 'orders main', reason: 'new naming scheme', ticket: 'ops-42' }),
      USERS.requester,
    );
    expect(errorsOf(wrongTicket)[BLOCK.ticket]).toBe(
      'The policy rule "production needs a reason and a ticket" asks for a ticket like OPS-123; ops-42 is not in that form.',
    );
    expect(posts(h, before)).toHaveLength(0);
    const ok = await h.submitView(
      view,
      fields({ name: 'orders main', reason: 'new naming scheme', ticket: 'OPS-42' }),
      USERS.requester,
    );
    expect(ok.body).toBe('');
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'));
    expect(textOf(posted.args.blocks)).toContain('*Reason:* “new naming scheme”');
  });
});
