/** The reminder as a DM (issue 41): what it names, where it points, and the buttons it carries. */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_REJECT } from '../../../src/core/render/change.js';
import { reminderDmMessage, reminderMessage } from '../../../src/core/render/nudge.js';
import type { Requirement } from '../../../src/core/policy/types.js';
import { changeRequest, mustPlan, NOW, service } from '../fixtures.js';
import { allTexts, blockKitViolations } from './block-kit.js';

const RULE: Requirement = { rule: 'dbas first', approvals: 1, approvers: ['U0APPROVER'], reasons: [] };
const LINK = 'https://example.slack.com/archives/C0CHANNEL/p1700000000000001?thread_ts=1700000000.000001&cid=C0CHANNEL';

function dm(link: string | undefined, overrides: Parameters<typeof changeRequest>[1] = {}) {
  const request = changeRequest(mustPlan(service(), { name: 'orders-main' }), overrides);
  const reminder = reminderMessage(request, [RULE], 1, NOW + 31 * 60_000);
  return {
    request,
    message: reminderDmMessage(request, reminder, { channelId: 'C0CHANNEL', ...(link ? { link } : {}) }),
  };
}

const buttons = (blocks: readonly unknown[]) =>
  blocks
    .filter(
      (b): b is { type: 'actions'; elements: Array<{ action_id: string; value: string }> } =>
        (b as { type?: string }).type === 'actions',
    )
    .flatMap((b) => b.elements.map((e) => [e.action_id, e.value]));

describe('a reminder DM', () => {
  it('names the service and the change, links to the request (its & escaped), and has Approve and Reject', () => {
    const { request, message } = dm(LINK);
    const text = allTexts(message.blocks);
    expect(text).toContain('orders-main');
    expect(text).toContain(
      '<https://example.slack.com/archives/C0CHANNEL/p1700000000000001?thread_ts=1700000000.000001&amp;cid=C0CHANNEL|Open the request> in <#C0CHANNEL>.',
    );
    expect(buttons(message.blocks)).toStrictEqual([
      [ACTION_APPROVE, request.id],
      [ACTION_REJECT, request.id],
    ]);
    expect(blockKitViolations(message.blocks, { max: 50 })).toStrictEqual([]);
  });

  it('says where the request is when Slack gave no link, or one that could break out of the markup', () => {
    for (const link of [undefined, 'https://x.invalid/a|<!channel>', 'javascript:alert(1)']) {
      const text = allTexts(dm(link).message.blocks);
      expect(text).toContain('Slack gave no link to the request: it is in <#C0CHANNEL>');
      expect(text).not.toContain('<!channel>');
      expect(text).not.toContain('Open the request');
    }
  });

  it('offers a review its one button, Mark reviewed', () => {
    const { request, message } = dm(LINK, { reviewOf: 'CR-0000000001' });
    expect(buttons(message.blocks)).toStrictEqual([[ACTION_APPROVE, request.id]]);
    expect(JSON.stringify(message.blocks)).toContain('Mark reviewed');
  });
});
