/**
 * The edit form's "Apply at" field: a Slack datetimepicker, read back with zod into an instant,
 * held to the same limits as `at TIME` (past, under a minute, beyond 90 days), refused in a
 * sentence that says what to do in the form rather than on the command line.
 */
import { describe, expect, it } from 'vitest';
import {
  APPLY_AT_FIELD,
  applyAtProblem,
  applyAtProblemText,
  resolveWhen,
  readWhen,
  WHEN_FORMS,
} from '../../../src/core/command/when.js';
import {
  APPLY_AT_UNREADABLE,
  applyAtFromSubmission,
  editMetadata,
  editView,
  intentFromSubmission,
  ViewStateSchema,
} from '../../../src/core/render/modal.js';
import { BLOCK } from '../../support/blocks.js';
import { stringContaining } from '../../support/matchers.js';
import { service } from '../fixtures.js';
import { assertModalLimits } from './block-kit.js';

/** 2026-03-28 12:00 UTC. */
const NOW = Date.UTC(2026, 2, 28, 12, 0);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** values[block][action] exactly as Slack sends a view_submission's state, read at the boundary. */
const stateWith = (picker: Record<string, unknown>) => ViewStateSchema.parse({ [BLOCK.applyAt]: { value: picker } });

describe('the Apply at field', () => {
  const record = service();
  const view = editView(record, editMetadata(record, 'C0123'));

  it('is an optional datetimepicker after "For how long", with nothing picked', () => {
    const ids = view.blocks.flatMap((b) => (b.block_id ? [b.block_id] : []));
    expect(ids.indexOf(BLOCK.applyAt)).toBe(ids.indexOf(BLOCK.duration) + 1);
    const block = view.blocks.find((b) => b.block_id === BLOCK.applyAt);
    expect(block).toMatchObject({
      type: 'input',
      optional: true,
      label: { type: 'plain_text', text: APPLY_AT_FIELD },
      element: { type: 'datetimepicker', action_id: 'value' },
      hint: { type: 'plain_text', text: stringContaining('Leave empty to apply the change once approved') },
    });
    expect(block && 'element' in block ? block.element : {}).not.toHaveProperty('initial_date_time');
    assertModalLimits(view);
  });

  it('reads selected_date_time (Unix seconds) as an instant in ms, and no change of its own', () => {
    const values = stateWith({ type: 'datetimepicker', selected_date_time: 1767225600 });
    expect(applyAtFromSubmission(values)).toStrictEqual({ at: Date.UTC(2026, 0, 1, 0, 0) });
    expect(intentFromSubmission(values, editMetadata(record, 'C0123').shown)).toStrictEqual({});
  });

  it('left empty (null, absent, or the block missing) is no time: applied once approved', () => {
    expect(applyAtFromSubmission(stateWith({ type: 'datetimepicker', selected_date_time: null }))).toBeUndefined();
    expect(applyAtFromSubmission(stateWith({ type: 'datetimepicker' }))).toBeUndefined();
    expect(applyAtFromSubmission(ViewStateSchema.parse({}))).toBeUndefined();
  });

  it('refuses what is not a picker answer in seconds, in a sentence that says what to do', () => {
    for (const odd of [
      { type: 'datetimepicker', selected_date_time: '1767225600' },
      { type: 'datetimepicker', selected_date_time: 1767225600.5 },
      { type: 'datetimepicker', selected_date_time: -5 },
      // Milliseconds: 2026 read as the year 57,965 would be no time at all.
      { type: 'datetimepicker', selected_date_time: 1767225600000 },
      { type: 'datepicker', selected_date: '2026-01-01' },
    ])
      expect(applyAtFromSubmission(stateWith(odd)), JSON.stringify(odd)).toStrictEqual({
        problem: APPLY_AT_UNREADABLE,
      });
    expect(APPLY_AT_UNREADABLE).toContain('Pick the date and the time again, or leave it empty');
  });
});

describe('the limits of a change’s time, shared by at TIME and the form', () => {
  it('a time must be a minute ahead at least and 90 days at most', () => {
    expect(applyAtProblem(NOW - MINUTE, NOW)).toBe('passed');
    expect(applyAtProblem(NOW, NOW)).toBe('passed');
    expect(applyAtProblem(NOW + MINUTE - 1, NOW)).toBe('too-soon');
    expect(applyAtProblem(NOW + MINUTE, NOW)).toBeUndefined();
    expect(applyAtProblem(NOW + 90 * DAY, NOW)).toBeUndefined();
    expect(applyAtProblem(NOW + 90 * DAY + 1, NOW)).toBe('too-far');
  });

  it('the command says them as before, with its own forms', () => {
    const refused = (words: string) => {
      const reading = readWhen(words.split(' '));
      if (reading.kind !== 'when') throw new Error(words);
      const result = resolveWhen(reading.spec, NOW, 'UTC');
      return result.ok ? 'accepted' : result.message;
    };
    expect(refused('2026-03-01 09:00')).toBe(applyAtProblemText('passed', '2026-03-01 09:00 UTC', 'command'));
    expect(applyAtProblemText('passed', '2026-03-01 09:00 UTC', 'command')).toBe(
      `2026-03-01 09:00 UTC has passed. Give a time in the future. ${WHEN_FORMS}.`,
    );
    expect(refused('2026-12-01 09:00')).toBe(
      '2026-12-01 09:00 UTC is more than 90 days away: schedule it closer to the time.',
    );
  });

  it('the form says the same refusals, with what to do in the form', () => {
    const label = '2026-01-01 01:00 Europe/Berlin';
    expect(applyAtProblemText('passed', label, 'form')).toBe(
      `${label} has passed. Pick a time in the future, or leave Apply at empty to have it applied as soon as it is approved.`,
    );
    expect(applyAtProblemText('too-soon', label, 'form')).toBe(
      `${label} is less than a minute away, too soon to be approved before it. Leave Apply at empty to have it applied as soon as it is approved, or pick a later time.`,
    );
    expect(applyAtProblemText('too-far', label, 'form')).toBe(
      `${label} is more than 90 days away: pick a time within 90 days, or ask again closer to the time.`,
    );
    for (const problem of ['passed', 'too-soon', 'too-far'] as const)
      expect(applyAtProblemText(problem, label, 'form')).not.toContain('at 2026-12-01 09:00');
  });
});
