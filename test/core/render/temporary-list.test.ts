/** `temporary` lists each active grant with its own Revert now button (issue 22's newcomer trial). */
import { describe, expect, it } from 'vitest';
import { ACTION_REVERT_NOW, temporaryListBlocks } from '../../../src/core/render/temporary.js';
import { pendingRequest } from '../approval/world.js';

describe('the temporary list', () => {
  it('offers Revert now for each grant', () => {
    const grant = { ...pendingRequest(), id: 'CR-GRANT', status: 'applied' as const };
    const blocks = JSON.stringify(temporaryListBlocks([{ request: grant, dueAt: Date.now() + 60_000 }], Date.now()));
    expect(blocks).toContain(ACTION_REVERT_NOW);
    expect(blocks).toContain('"value":"CR-GRANT"');
  });

  it('says when each is reverted, that a revert past its time is under way, or that a failing one is overdue', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    const grant = { ...pendingRequest(), id: 'CR-GRANT', status: 'applied' as const };
    const text = (entry: { dueAt: number; overdueSince?: number }) =>
      JSON.stringify(temporaryListBlocks([{ request: grant, ...entry }], now));
    const at = (ms: number) => `<!date^${Math.floor(ms / 1000)}^`;
    expect(text({ dueAt: now + 60_000 })).toContain(`the bot reverts it ${at(now + 60_000)}`);
    expect(text({ dueAt: now - 5_000 })).toContain(`revert due ${at(now - 5_000)}`);
    expect(text({ dueAt: now - 5_000 })).toContain('under way');
    const overdue = text({ dueAt: now + 30_000, overdueSince: now - 120_000 });
    expect(overdue).toContain(`*revert overdue* since ${at(now - 120_000)}`);
    expect(overdue).toContain(`tries again ${at(now + 30_000)}`);
  });

  it('falls back to lines when the grants would not fit one message with a button each', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      request: { ...pendingRequest(), id: `CR-${i}`, status: 'applied' as const },
      dueAt: Date.now() + 60_000,
    }));
    const blocks = temporaryListBlocks(many, Date.now());
    expect(blocks.length).toBeLessThanOrEqual(50);
  });
});
