/**
 * `members [ROLE]` and `roles` (issue 40, first bullets): the organization's people and roles from
 * GET …/members and GET …/roles, privately to whoever asked.
 */
import { describe, expect, it } from 'vitest';
import { answerText, useHarnesses } from './harness.js';

const harness = useHarnesses();

describe('members and roles', () => {
  it('lists every member with email, roles and when they joined', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('members'));
    expect(text).toContain('Members (3)');
    expect(text).toMatch(/\*Ada Admin\* ada@example\.com · Admin · joined <!date\^/);
    expect(text).toContain('*Bill Ing* bill@example.com · Billing viewer');
  });

  it('narrows to a role by name, spaces and case as people type them', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('members billing VIEWER'));
    expect(text).toContain('Members with the role billing VIEWER (1)');
    expect(text).toContain('Bill Ing');
    expect(text).not.toContain('Ada Admin');
    const none = await answerText(h, await h.command('members Owner'));
    expect(none).toContain('No member has the role `Owner`. The roles are `Admin`, `Developer`, `Billing viewer`.');
  });

  it('lists the roles with how many members and keys hold each', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('roles'));
    expect(text).toContain('*Admin* (system) · 1 member, 2 API keys');
    expect(text).toContain('*Billing viewer* (custom) · 1 member, 0 API keys');
  });
});
