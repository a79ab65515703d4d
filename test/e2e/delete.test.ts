/**
 * `delete SERVICE` (issue 37): only a stopped service; the last good backup shown and its absence
 * warned of; two approvals unless a rule says otherwise, each approver typing the service's name
 * (a click without it approves nothing); never temporary, never break-glass; followed until gone.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_UNDO } from '../../src/core/render/temporary.js';
import { CONFIRM_BLOCK, CONFIRM_CALLBACK } from '../../src/core/render/confirm-form.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  appliedMessage,
  callSimulatorApi,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const deletes = (h: Harness) =>
  h.simulator.requests.filter((r) => r.method === 'DELETE' && r.path.includes('/services/'));

/** Approve from the form the click opened, typing `name`. */
async function approveTyping(h: Harness, id: string, user: string, name: string) {
  const after = h.slack.calls.length;
  await h.click(ACTION_APPROVE, id, user, undefined, { trigger: true });
  const opened = await h.slack.waitFor('views.open', () => true, { after });
  const view = opened.args.view as Record<string, unknown>;
  expect(view['callback_id']).toBe(CONFIRM_CALLBACK);
  return h.submitView(view, { [CONFIRM_BLOCK]: { value: { type: 'plain_text_input', value: name } } }, user);
}

describe('delete', () => {
  it('deletes a stopped service after two approvals, each typing its name, and follows it until it is gone', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'delete orders-staging');
    const request = textOf(posted.args.blocks);
    expect(request).toMatch(/Service\*: `stopped` → `deleted, for good`/);
    expect(request).toContain('default: two approvals');
    expect(request).toMatch(/:warning: \*(The last good backup|No good backup from the last 48 hours)/);

    // A name typed wrong is shown in the form and approves nothing.
    const wrong = await approveTyping(h, id, USERS.approver, 'orders-stagin');
    expect(wrong.body).toContain('exactly as shown');
    await approveTyping(h, id, USERS.approver, 'orders-staging');
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('1 of 2'));
    expect(deletes(h)).toHaveLength(0);
    await approveTyping(h, id, USERS.second, 'orders-staging');
    await expect.poll(() => deletes(h).length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => h.simulator.service(DEMO_IDS.ordersStaging), { timeout: 10_000 }).toBeUndefined();
    await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('is deleted'));
    // Nothing to take back: the applied request offers no Undo.
    const applied = await appliedMessage(h, id);
    expect(JSON.stringify(applied.args.blocks)).not.toContain(ACTION_UNDO);
  });

  it('refuses an approval that skipped the form (a click without the name)', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'delete orders-staging');
    const answer = await h.bot.changeRequests.decide('approve', id, USERS.approver, { origin: {} });
    expect(answer?.text).toContain('type the name');
    expect((await h.bot.changeStore.get(id))?.approvals ?? []).toHaveLength(0);
  });

  it('refuses a running service, a temporary delete and break-glass', async () => {
    const path = policyFile('breakglass: [U0REQUESTER]\nrules: []\n');
    const h = await harness({ env: { POLICY_FILE: path } });
    expect(await answerText(h, await h.command('delete orders-prod'))).toContain('stop it first with');
    expect(await answerText(h, await h.command('delete orders-staging for 1h'))).toContain('never temporary');
    expect(await answerText(h, await h.command('breakglass delete orders-staging for 1h because "x"'))).toContain(
      'never break-glass',
    );
    expect(await answerText(h, await h.command('breakglass delete orders-staging because "x"'))).toContain(
      'Break-glass changes are temporary',
    );
    expect(deletes(h)).toHaveLength(0);
  });

  it('a rule on delete decides how many approvals it needs', async () => {
    const path = policyFile(
      'rules:\n  - name: deletes by the DBAs\n    match: { changes: [delete] }\n    approvals: 1\n',
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id, posted } = await requestChange(h, 'delete orders-staging');
    expect(textOf(posted.args.blocks)).toContain('deletes by the DBAs');
    await approveTyping(h, id, USERS.approver, 'orders-staging');
    await expect.poll(() => deletes(h).length, { timeout: 10_000 }).toBe(1);
  });

  it('a rule that matches by tag alone (staging needs no approval) leaves the two approvals in place', async () => {
    const path = policyFile(
      'rules:\n  - name: staging is free\n    match: { tags: { env: staging } }\n    approvals: 0\n',
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id, posted } = await requestChange(h, 'delete orders-staging');
    expect(textOf(posted.args.blocks)).toContain('default: two approvals');
    await approveTyping(h, id, USERS.approver, 'orders-staging');
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('1 of 2'));
    expect(deletes(h)).toHaveLength(0);
  });

  it('is refused as stale when the service was started after the request was made', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'delete orders-staging');
    await approveTyping(h, id, USERS.approver, 'orders-staging');
    await callSimulatorApi(h, 'PATCH', `/services/${DEMO_IDS.ordersStaging}/state`, { command: 'start' });
    await approveTyping(h, id, USERS.second, 'orders-staging');
    await h.slack.waitFor('chat.postMessage', (a) => String(a['text']).includes('changed since this request was made'));
    expect(deletes(h)).toHaveLength(0);
  });
});
