/** docs/approval-states.md is what the machines' tables say now. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { approvalStatesMarkdown, STATES_COMMAND } from '../../../src/core/approval/states.js';

describe('docs/approval-states.md', () => {
  it('is the table generated from the two machines', () => {
    const checkedIn = readFileSync(new URL('../../../docs/approval-states.md', import.meta.url), 'utf8');
    expect(
      checkedIn === approvalStatesMarkdown(),
      `docs/approval-states.md is out of date: run ${STATES_COMMAND}`,
    ).toBe(true);
  });
});
