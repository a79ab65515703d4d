/**
 * `core-dumps SERVICE on|off` (issue 36's pilot of one module per kind): a change request like the
 * others, end to end over the real wire. Its command, form input, plan, undo, policy name and drift
 * all come from one module (src/core/change/kinds/core-dumps.ts) plus its line in the table.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_UNDO } from '../../src/core/render/temporary.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { BLOCK } from '../support/blocks.js';
import { answerText, appliedMessage, requestChange, textOf, useHarnesses, USERS, type Harness } from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses();
const policyFile = usePolicyFiles();

const servicePatches = (h: Harness, serviceId: string) =>
  h.simulator.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/services/${serviceId}`));

describe('core-dumps', () => {
  it('asks, shows off → on, and once approved sends exactly enableCoreDumps; Undo switches it back', async () => {
    const h = await harness();
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.enableCoreDumps).toBe(false);
    const { id, posted } = await requestChange(h, 'core-dumps orders-prod on');
    expect(textOf(posted.args.blocks)).toMatch(/Core dumps\*: `off` → `on`/);
    expect(servicePatches(h, DEMO_IDS.ordersProd)).toHaveLength(0);

    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(servicePatches(h, DEMO_IDS.ordersProd).map((r) => r.body)).toEqual([{ enableCoreDumps: true }]);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.enableCoreDumps).toBe(true);

    const after = h.slack.calls.length;
    await answerText(h, await h.click(ACTION_UNDO, id, USERS.requester));
    const undo = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    expect(textOf(undo.args.blocks)).toMatch(/Core dumps\*: `on` → `off`/);
  });

  it('refuses what it cannot read with the usage line, and a switch already in place', async () => {
    const h = await harness();
    expect(await answerText(h, await h.command('core-dumps orders-prod maybe'))).toContain('core-dumps SERVICE on|off');
    expect(await answerText(h, await h.command('core-dumps orders-prod'))).toContain(
      'Tell me the service and on or off',
    );
    expect(await answerText(h, await h.command('core-dumps orders-prod on off'))).toContain(
      'core-dumps takes a service and on or off',
    );
    // orders-prod has core dumps off already: nothing to ask.
    const already = await answerText(h, await h.command('core-dumps orders-prod off'));
    expect(already).not.toMatch(/CR-[0-9A-F]{10}/);
  });

  it('is a kind policies name: a rule on core-dumps asks for two approvals', async () => {
    const path = policyFile(
      'rules:\n  - name: core dumps need two\n    match: { changes: [core-dumps] }\n    approvals: 2\n',
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const { id, posted } = await requestChange(h, 'core-dumps orders-prod on');
    expect(textOf(posted.args.blocks)).toContain('core dumps need two');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('1 of 2'));
    expect(servicePatches(h, DEMO_IDS.ordersProd)).toHaveLength(0);
    const policy = await answerText(h, await h.command('policy orders-prod'));
    expect(policy).toContain('core-dumps');
  });

  it('is in help, and in the edit form as a switch for a service whose record says', async () => {
    const h = await harness();
    const help = await answerText(h, await h.command('help core-dumps'));
    expect(help).toContain('core-dumps orders-prod on');
    await h.command('edit orders-prod');
    const filled = await h.slack.waitFor('views.update');
    const view = filled.args.view as { blocks: Array<{ block_id?: string }> };
    expect(view.blocks.map((b) => b.block_id)).toContain(BLOCK.coreDumps);
  });
});
