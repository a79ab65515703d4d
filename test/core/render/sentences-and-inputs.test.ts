/**
 * One sentence per distinct problem, however often it occurs (990 duplicate tags were 990 copies
 * of one sentence), in the modal and in a command's answer; and every text input of the edit
 * modal within Slack's 3,000-character max_length, whatever the data.
 */
import { describe, expect, it } from 'vitest';
import { editMetadata, editView, modalErrors } from '../../../src/core/render/modal.js';
import { distinctSentences } from '../../../src/core/render/mrkdwn.js';
import { inProcess } from '../../support/in-process.js';
import { refused, service } from '../fixtures.js';

const DUPLICATES = Array.from({ length: 990 }, () => ({ key: 'env', value: 'x' }));

describe('one sentence per distinct problem', () => {
  it('says a repeated sentence once, with how many times, and keeps distinct ones in order', () => {
    expect(distinctSentences(['A.', 'B.', 'A.', 'A.'])).toEqual(['A. (3 times)', 'B.']);
  });

  it('shows 990 duplicate tags in the modal as one sentence', () => {
    const errors = modalErrors(refused(service(), { tagAdd: DUPLICATES }));
    const sentences = Object.values(errors).join(' ');
    expect(sentences.split('Tag env is given twice').length - 1).toBe(1);
    expect(sentences.length).toBeLessThan(400);
  });

  it("says it at most once in a command's answer", async () => {
    const h = inProcess();
    const words = Array.from({ length: 990 }, () => 'env=x').join(' ');
    const [answer] = await h.command(`tag add orders-prod ${words}`);
    const text = JSON.stringify(answer);
    expect(text.split('given twice').length - 1).toBeLessThanOrEqual(1);
    expect(text.length).toBeLessThan(2_000);
  });
});

describe('the edit modal and Slack’s input limits', () => {
  it('keeps every text input within 3,000 characters, and its initial value within its max_length', () => {
    const record = service({ name: 'n'.repeat(5_000) });
    const view = editView(record, editMetadata(record, 'C1'));
    const inputs = view.blocks.flatMap((block) => {
      if (block.type !== 'input' || !('element' in block)) return [];
      const element = block.element;
      return element.type === 'plain_text_input' ? [element] : [];
    });
    expect(inputs.length).toBeGreaterThanOrEqual(3);
    for (const input of inputs) {
      expect(input.max_length, input.action_id).toBeDefined();
      expect(input.max_length ?? Infinity).toBeLessThanOrEqual(3_000);
      expect([...(input.initial_value ?? '')].length).toBeLessThanOrEqual(input.max_length ?? 0);
    }
  });
});
