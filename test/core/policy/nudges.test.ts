import { describe, expect, it } from 'vitest';
import {
  dmTargets,
  dueNudges,
  MAX_REMINDERS,
  nextNudgeAt,
  notifyOf,
  remindsInThread,
  withEscalation,
} from '../../../src/core/policy/nudges.js';
import { parsePolicy } from '../../../src/core/policy/parse.js';
import type { Requirement } from '../../../src/core/policy/types.js';

const MINUTE = 60_000;
const rule = (extra: Partial<Requirement> = {}): Requirement => ({
  rule: 'dbas',
  approvals: 1,
  approvers: ['U0DBA'],
  reasons: ['env=prod'],
  ...extra,
});
const request = (extra: Partial<Parameters<typeof dueNudges>[0]> = {}) => ({
  id: 'CR-0000000001',
  status: 'pending' as const,
  createdAt: 0,
  expiresAt: 24 * 60 * MINUTE,
  approvals: [],
  ...extra,
});

describe('dueNudges', () => {
  it('is quiet before the first reminder, then names the latest round, never past MAX_REMINDERS', () => {
    const requirements = [rule()];
    expect(dueNudges(request(), requirements, 29 * MINUTE)).toEqual([]);
    expect(dueNudges(request(), requirements, 30 * MINUTE)).toEqual([
      { kind: 'remind', key: 'nudge:CR-0000000001:remind:1', round: 1 },
    ]);
    // After a long outage: one reminder (the latest round), not every missed one.
    expect(dueNudges(request(), requirements, 95 * MINUTE).map((n) => n.key)).toEqual(['nudge:CR-0000000001:remind:3']);
    expect(dueNudges(request(), requirements, 10 * 60 * MINUTE).map((n) => n.key)).toEqual([
      `nudge:CR-0000000001:remind:${MAX_REMINDERS}`,
    ]);
  });

  it('uses the shortest remind of the rules still unmet', () => {
    const requirements = [rule({ remindMs: 10 * MINUTE }), rule({ rule: 'leads', remindMs: 60 * MINUTE })];
    expect(dueNudges(request(), requirements, 10 * MINUTE).map((n) => n.key)).toEqual(['nudge:CR-0000000001:remind:1']);
    // The fast rule is met: only the slow one counts now.
    const met = request({ approvals: [{ userId: 'U0DBA', at: 1, counts: [0] }] });
    expect(dueNudges(met, requirements, 20 * MINUTE)).toEqual([]);
  });

  it('says nothing of a request that is settled, expired or fully approved', () => {
    for (const settled of [
      request({ status: 'applied' }),
      request({ expiresAt: 30 * MINUTE }),
      request({ approvals: [{ userId: 'U0DBA', at: 1, counts: [0] }] }),
    ])
      expect(dueNudges(settled, [rule()], 40 * MINUTE)).toEqual([]);
  });

  it('escalates each unmet rule once its after has passed', () => {
    const requirements = [rule({ escalate: { afterMs: 120 * MINUTE, to: ['S0ONCALL'] } })];
    expect(dueNudges(request(), requirements, 119 * MINUTE).filter((n) => n.kind === 'escalate')).toEqual([]);
    expect(dueNudges(request(), requirements, 120 * MINUTE).filter((n) => n.kind === 'escalate')).toMatchObject([
      { kind: 'escalate', key: 'nudge:CR-0000000001:escalate:0', index: 0 },
    ]);
  });
});

describe('withEscalation', () => {
  const requirements = [rule({ escalate: { afterMs: 60 * MINUTE, to: ['S0ONCALL', 'U0DBA'] } })];

  it('adds the to people once the time has come, without duplicates', () => {
    expect(withEscalation(requirements, 0, 59 * MINUTE)[0]?.approvers).toEqual(['U0DBA']);
    expect(withEscalation(requirements, 0, 60 * MINUTE)[0]?.approvers).toEqual(['U0DBA', 'S0ONCALL']);
  });

  it('leaves a rule open to anyone open to anyone', () => {
    const anyone = [rule({ approvers: [], escalate: { afterMs: 1, to: ['S0ONCALL'] } })];
    expect(withEscalation(anyone, 0, 10)[0]?.approvers).toEqual([]);
  });
});

describe('who is told directly', () => {
  it('the approvers of unmet rules that notify by DM, never the requester or who already approved', () => {
    const requirements = [
      rule({ approvers: ['U0DBA', 'S0DBAS', 'U0REQ'] }),
      rule({ rule: 'quiet', approvers: ['U0QUIET'], notify: 'channel' }),
      rule({ rule: 'anyone', approvers: [] }),
    ];
    const asked = { requesterId: 'U0REQ', approvals: [] };
    expect(dmTargets(asked, requirements)).toEqual(['U0DBA', 'S0DBAS']);
    expect(dmTargets({ ...asked, approvals: [{ userId: 'U0DBA', at: 1, counts: [0] }] }, requirements)).toEqual([]);
  });

  it('defaults to both when a rule names people, channel otherwise; dm keeps reminders out of the thread', () => {
    expect(notifyOf(rule())).toBe('both');
    expect(notifyOf(rule({ approvers: [] }))).toBe('channel');
    expect(remindsInThread({ approvals: [] }, [rule({ notify: 'dm' })])).toBe(false);
    expect(remindsInThread({ approvals: [] }, [rule({ notify: 'dm' }), rule({ rule: 'b' })])).toBe(true);
  });
});

describe('policy files: remind, escalate and channel', () => {
  const policy = (extra: string) =>
    parsePolicy(`rules:\n  - name: r\n    match: {}\n    approvals: 1\n    approvers: [U0DBA]\n${extra}`);

  it('reads them as durations and Slack ids', () => {
    const parsed = policy('    remind: 45 minutes\n    escalate: { after: 2h, to: [S0ONCALL] }\n');
    expect(parsed.ok && parsed.policy.rules[0]).toMatchObject({
      remindMs: 45 * MINUTE,
      escalate: { afterMs: 120 * MINUTE, to: ['S0ONCALL'] },
    });
  });

  it('refuses a wait under a minute, in words it cannot read, or people that are not Slack ids', () => {
    for (const [extra, problem] of [
      ['    remind: 30s\n', 'remind must be a duration from 1 minute to 7 days'],
      ['    remind: soon\n', 'remind must be a duration from 1 minute to 7 days'],
      ['    remind: 30\n', 'remind must be a duration like 30m'],
      ['    escalate: { after: 2h, to: [oncall] }\n', 'escalate.to[0] must be a Slack user id'],
      ['    escalate: { after: 2h }\n', 'escalate.to'],
      ['    escalate: { after: 9d, to: [S0ONCALL] }\n', 'escalate.after must be a duration from 1 minute to 7 days'],
    ] as const) {
      const parsed = policy(extra);
      expect(parsed.ok, extra).toBe(false);
      expect(parsed.ok ? '' : parsed.problems.join('\n'), extra).toContain(problem);
    }
  });

  it('reads channel as a Slack channel id, and refuses anything else', () => {
    const parsed = policy('    channel: C0DBAS\n');
    expect(parsed.ok && parsed.policy.rules[0]).toMatchObject({ channel: 'C0DBAS' });
    const named = policy('    channel: "#dbas"\n');
    expect(named.ok ? '' : named.problems.join('\n')).toContain('channel must be a Slack channel id (C…), like C0DBAS');
  });

  it('reads notify as dm, channel or both', () => {
    const parsed = policy('    notify: dm\n');
    expect(parsed.ok && parsed.policy.rules[0]).toMatchObject({ notify: 'dm' });
    const wrong = policy('    notify: email\n');
    expect(wrong.ok ? '' : wrong.problems.join('\n')).toContain('notify must be one of dm, channel, both');
  });

  it('refuses them in a rule that asks for no approval', () => {
    const parsed = parsePolicy('rules:\n  - name: r\n    match: {}\n    approvals: 0\n    remind: 30m\n');
    expect(parsed.ok ? '' : parsed.problems.join('\n')).toContain(
      'remind has no effect in a rule that asks for no approval',
    );
  });
});

describe('nextNudgeAt', () => {
  it('is the next reminder round, then nothing once MAX_REMINDERS are said', () => {
    const requirements = [rule()];
    expect(nextNudgeAt(request(), requirements, 0)).toBe(30 * MINUTE);
    expect(nextNudgeAt(request(), requirements, 30 * MINUTE)).toBe(60 * MINUTE);
    expect(nextNudgeAt(request(), requirements, 89 * MINUTE)).toBe(90 * MINUTE);
    expect(nextNudgeAt(request(), requirements, 90 * MINUTE)).toBeUndefined();
  });

  it('is an escalation due sooner than the next reminder, and never a time dueNudges finds nothing at', () => {
    const requirements = [rule({ escalate: { afterMs: 45 * MINUTE, to: ['U0LEAD'] } })];
    expect(nextNudgeAt(request(), requirements, 31 * MINUTE)).toBe(45 * MINUTE);
    for (const now of [0, 10 * MINUTE, 31 * MINUTE, 45 * MINUTE, 61 * MINUTE]) {
      const at = nextNudgeAt(request(), requirements, now);
      expect(at).toBeGreaterThan(now);
      expect(dueNudges(request(), requirements, at ?? 0).length).toBeGreaterThan(0);
    }
  });

  it('is nothing for a decided, fully approved or expiring request', () => {
    const requirements = [rule()];
    expect(nextNudgeAt(request({ status: 'applied' }), requirements, 0)).toBeUndefined();
    expect(
      nextNudgeAt(request({ approvals: [{ userId: 'U0DBA', at: 1, counts: [0] }] }), requirements, 0),
    ).toBeUndefined();
    expect(nextNudgeAt(request({ expiresAt: 20 * MINUTE }), requirements, 0)).toBeUndefined();
  });
});
