/** The line a temporary request carries says when it is reverted only as far as that is known (issue 35, point 9). */
import { describe, expect, it } from 'vitest';
import type { ChangeRequest } from '../../../src/core/change/types.js';
import { revertAskedText, temporaryNote } from '../../../src/core/render/temporary.js';
import { pendingRequest } from '../approval/world.js';

const HOUR = 3_600_000;
const grant = (over: Partial<ChangeRequest>): ChangeRequest => ({
  ...pendingRequest(),
  temporary: { durationMs: HOUR, remindAfterMs: HOUR - 600_000 },
  ...over,
});
const noteOf = (request: ChangeRequest) => JSON.stringify(temporaryNote(request));
const at = (ms: number) => `<!date^${Math.floor(ms / 1000)}^`;

describe('a temporary request’s note', () => {
  it('says "if approved now" only while it waits for an approval', () => {
    expect(noteOf(grant({}))).toContain(`if approved now, at ${at(HOUR)}`);
    for (const over of [
      { status: 'applied' as const },
      { status: 'applying' as const },
      { breakGlass: true as const },
      { requirements: [{ rule: 'open', approvals: 0, approvers: [], reasons: [] }] },
    ])
      expect(noteOf(grant(over))).not.toContain('if approved now');
    expect(noteOf(grant({ status: 'applied' }))).toContain(
      'after it was applied, without approval: its thread says when',
    );
  });

  it('gives a scheduled one the time it is applied plus the duration, and a never-applied one no revert', () => {
    expect(noteOf(grant({ applyAt: 5 * HOUR }))).toContain(`applied at its time (at ${at(6 * HOUR)}`);
    expect(noteOf(grant({ status: 'rejected' }))).not.toContain('reverts');
  });

  it('names who asked for a revert: the bot at its time, or Revert now by someone', () => {
    expect(revertAskedText(grant({ requesterId: 'the bot', revertOf: 'CR-X' }))).toContain(
      'filed by the bot at its time',
    );
    expect(revertAskedText(grant({ requesterId: 'U0ALICE', revertOf: 'CR-X' }))).toContain(
      'asked by <@U0ALICE> with Revert now',
    );
  });
});
