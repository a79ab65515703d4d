/**
 * Undo and Extend are judged by the rules that apply to them (issue 35, point 2), end to end: the
 * real bot over signed HTTP, real Redis, the simulator and the Slack stand-in. Where a rule asks a
 * reason or a ticket the original did not carry, the click opens a small form instead of filing.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { ACTION_EXTEND, ACTION_UNDO } from '../../src/core/render/temporary.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  appliedMessage,
  messageTsOf,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ temporaryTickMs: 50, simulatorTransitionMs: 200 });
const policyFile = usePolicyFiles();

const STOP_NEEDS_TICKET = [
  'rules:',
  '  - name: stop needs an incident ticket',
  '    match: { changes: [power], risks: [stop] }',
  '    approvals: 1',
  '    require: { ticket: "^INC-[0-9]+$" }',
  '',
].join('\n');

const IP_RULE = (require: string) =>
  ['rules:', '  - name: ip access', '    match: { changes: [ip-access] }', '    approvals: 1', require, ''].join('\n');

const input = (value: string) => ({ value: { type: 'plain_text_input', value } });
const errorsOf = (ack: { body: string }) => (JSON.parse(ack.body) as { errors: Record<string, string> }).errors;
const requestPosts = (h: Harness, after: number) =>
  h.slack
    .callsOf('chat.postMessage')
    .filter((c) => h.slack.calls.indexOf(c) >= after && textOf(c.args.blocks).includes('Change request'));

/** Clicks `actionId` with a live trigger and answers the form it opens. */
async function clickForForm(h: Harness, actionId: string, id: string, user: string) {
  const after = h.slack.calls.length;
  await h.click(actionId, id, user, undefined, { trigger: true });
  const opened = await h.slack.waitFor('views.open', () => true, { after });
  return opened.args.view as Record<string, unknown>;
}

/** `start orders-staging`, approved, applied and running: its Undo would be a stop. */
async function startedOrdersStaging(h: Harness): Promise<string> {
  const { id } = await requestChange(h, 'start orders-staging');
  await h.click(ACTION_APPROVE, id, USERS.approver);
  await appliedMessage(h, id);
  await expect.poll(() => h.simulator.service(DEMO_IDS.ordersStaging)?.state, { timeout: 5_000 }).toBe('running');
  return id;
}

describe('Undo under a rule that asks for a ticket (issue 35, point 2)', () => {
  it('of an approved start (a stop) asks for the ticket in a form instead of filing a bare stop', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(STOP_NEEDS_TICKET) } });
    const id = await startedOrdersStaging(h);

    const after = h.slack.calls.length;
    const form = await clickForForm(h, ACTION_UNDO, id, USERS.requester);
    expect(textOf(form)).toContain('stop needs an incident ticket');
    expect(textOf(form)).toContain('a ticket like `INC-123`');
    expect(requestPosts(h, after)).toHaveLength(0);
    expect((await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).filter((r) => r.undoOf === id)).toEqual([]);

    const wrong = await h.submitView(form, { [BLOCK.ticket]: input('inc-7') }, USERS.requester);
    expect(errorsOf(wrong)[BLOCK.ticket]).toContain('inc-7 is not in that form');
    expect(requestPosts(h, after)).toHaveLength(0);

    const ok = await h.submitView(form, { [BLOCK.ticket]: input('INC-7') }, USERS.requester);
    expect(ok.body).toBe('');
    const undo = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    expect(undo.args.thread_ts).toBe(await messageTsOf(h, id));
    expect(textOf(undo.args.blocks)).toContain('*Ticket:* `INC-7`');
    const [filed] = (await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).filter((r) => r.undoOf === id);
    expect(filed).toMatchObject({ ticket: 'INC-7', requesterId: USERS.requester });
  });

  it('without a way to open the form, says what the rule asks and files nothing', async () => {
    const h = await harness({ env: { POLICY_FILE: policyFile(STOP_NEEDS_TICKET) } });
    const id = await startedOrdersStaging(h);
    const after = h.slack.calls.length;
    const answer = await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
    expect(answer).toContain('*stop needs an incident ticket* asks for a ticket like `INC-123`');
    expect(answer).toContain('click the button again');
    expect(requestPosts(h, after)).toHaveLength(0);
  });
});

describe('Extend after a policy reload added a require (issue 35, point 2)', () => {
  it('asks for the reason in a form; the extension carries it and is applied', async () => {
    const path = policyFile(IP_RULE(''));
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id } = await requestChange(h, 'ip add orders-prod 192.0.2.44/32 hotel for 1h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);

    writeFileSync(path, IP_RULE('    require: { reason: true }'));
    await h.bot.reloadPolicy();
    const after = h.slack.calls.length;
    const form = await clickForForm(h, ACTION_EXTEND, id, USERS.requester);
    expect(textOf(form)).toContain('*ip access* asks for a reason');
    expect(requestPosts(h, after)).toHaveLength(0);

    const empty = await h.submitView(form, {}, USERS.requester);
    expect(errorsOf(empty)[BLOCK.reason]).toContain('asks for a reason');
    await h.submitView(form, { [BLOCK.reason]: input('still debugging the hotel link') }, USERS.requester);
    const extension = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes(`Revert of ${id}`), {
      after,
    });
    expect(textOf(extension.args.blocks)).toContain('*Reason:* “still debugging the hotel link”');
    const [filed] = (await h.bot.changeStore.listPending('C0CHANNEL', Date.now())).filter((r) => r.extendOf === id);
    await h.click(ACTION_APPROVE, filed?.id ?? '', USERS.approver);
    await expect.poll(async () => (await h.bot.changeStore.get(filed?.id ?? ''))?.status).toBe('applied');
  });
});
