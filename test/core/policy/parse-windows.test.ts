/** The policy file's window, freeze, breakglass and breakglass_max keys, and their problems with lines. */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../src/core/policy/parse.js';
import { DEFAULT_BREAKGLASS_MAX_MS } from '../../../src/core/policy/types.js';

const FILE = `breakglass: [S0ONCALL, U0ALICE]
breakglass_max: 2h
rules:
  - name: production
    match: { tags: { env: prod } }
    approvals: 1
    window: { days: [mon, tue, wed, thu], from: "09:00", to: "16:00", tz: Europe/Berlin }
    freeze: [{ from: 2026-12-20, to: 2027-01-04, reason: "Year-end freeze" }]
`;

function problemsOf(text: string): string[] {
  const parsed = parsePolicy(text);
  if (parsed.ok) throw new Error('expected problems');
  return parsed.problems;
}

describe('windows, freezes and break-glass in the policy file', () => {
  it('reads the issue example', () => {
    const parsed = parsePolicy(FILE);
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    expect(parsed.policy.breakglass).toEqual(['S0ONCALL', 'U0ALICE']);
    expect(parsed.policy.breakglassMaxMs).toBe(2 * 3_600_000);
    expect(parsed.policy.rules[0]).toMatchObject({
      window: { days: ['mon', 'tue', 'wed', 'thu'], fromMinute: 540, toMinute: 960, tz: 'Europe/Berlin' },
      freezes: [{ from: '2026-12-20', to: '2027-01-04', reason: 'Year-end freeze' }],
    });
  });

  it('defaults breakglass_max to 4 hours and lists nobody without breakglass', () => {
    const parsed = parsePolicy('rules: []\n');
    if (!parsed.ok) throw new Error('expected a policy');
    expect(parsed.policy.breakglassMaxMs).toBe(DEFAULT_BREAKGLASS_MAX_MS);
    expect(parsed.policy.breakglass).toBeUndefined();
  });

  it('names every problem with its line', () => {
    const problems = problemsOf(`breakglass: [alice]
breakglass_max: forever
rules:
  - name: a
    match: {}
    approvals: 1
    window: { days: [mon, funday], from: "9am", to: "25:00", tz: Mars/Olympus, when: now }
  - name: b
    match: {}
    approvals: 1
    window: { days: [], from: "10:00", to: "10:00", tz: UTC }
    freeze: [{ from: 2026-02-30, to: 2026-01-01 }, { from: 2026-12-24, to: 2026-12-20, reason: x }]
  - name: c
    match: {}
    deny: no
    window: { days: [mon], from: "09:00", to: "10:00", tz: UTC }
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'line 1: breakglass[0] must be a Slack user id (U…) or user group id (S…)',
        'line 2: breakglass_max must be a duration from 1 minute to 7 days, like 30m, 2h or 90 minutes',
        expect.stringMatching(/^line 7: rule 1 \("a"\): unknown key "when" \(allowed here: days, from, to, tz\)$/),
        expect.stringMatching(/^line 7: rule 1 \("a"\): window\.days\[1\] must be a day: sun, mon/),
        'line 7: rule 1 ("a"): window.from must be a time of day from "00:00" to "23:59", like "09:00"',
        'line 7: rule 1 ("a"): window.to must be a time of day from "00:00" to "24:00", like "09:00"',
        'line 7: rule 1 ("a"): window.tz is not a time zone I know; write it like Europe/Berlin or UTC',
        expect.stringMatching(/^line 11: rule 2 \("b"\): window\.days must not be empty/),
        expect.stringMatching(/^line 12: rule 2 \("b"\): freeze\[0\]\.from must be a date that exists/),
        expect.stringMatching(/^line 12: rule 2 \("b"\): freeze\[0\]\.reason is required/),
        expect.stringMatching(/^line 12: rule 2 \("b"\): freeze\[1\]\.to is before from/),
        expect.stringMatching(/^line 16: rule 3 \("c"\): window has no effect in a deny rule/),
      ]),
    );
  });

  it('refuses a window whose from and to are the same time', () => {
    expect(
      problemsOf(
        `rules:\n  - name: a\n    match: {}\n    approvals: 1\n    window: { days: [mon], from: "10:00", to: "10:00", tz: UTC }\n`,
      ),
    ).toEqual([
      'line 5: rule 1 ("a"): window.to must differ from from (for a whole day write from: "00:00", to: "24:00")',
    ]);
  });
});
