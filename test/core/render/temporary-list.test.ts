/** `temporary` lists each active grant with its own Revert now button (issue 22's newcomer trial). */
import { describe, expect, it } from 'vitest';
import { ACTION_REVERT_NOW, temporaryListBlocks } from '../../../src/core/render/temporary.js';
import { pendingRequest } from '../approval/world.js';

describe('the temporary list', () => {
  it('offers Revert now for each grant', () => {
    const grant = { ...pendingRequest(), id: 'CR-GRANT', status: 'applied' as const };
    const blocks = JSON.stringify(temporaryListBlocks([{ request: grant, dueAt: Date.now() + 60_000 }]));
    expect(blocks).toContain(ACTION_REVERT_NOW);
    expect(blocks).toContain('"value":"CR-GRANT"');
  });

  it('falls back to lines when the grants would not fit one message with a button each', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      request: { ...pendingRequest(), id: `CR-${i}`, status: 'applied' as const },
      dueAt: Date.now() + 60_000,
    }));
    const blocks = temporaryListBlocks(many);
    expect(blocks.length).toBeLessThanOrEqual(50);
  });
});
