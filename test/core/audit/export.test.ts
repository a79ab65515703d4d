import { describe, expect, it } from 'vitest';
import {
  outboxPressure,
  parseAuditSinks,
  policyReloadFields,
  retryDelayMs,
  toAuditEvent,
} from '../../../src/core/audit/export.js';

const ORG = '11111111-2222-4333-8444-555555555555';

describe('AUDIT_SINKS', () => {
  it('reads files and webhooks, comma separated, labelled without paths or tokens', () => {
    const { sinks, problems } = parseAuditSinks(
      ' file:/var/log/clickhouse-bot/audit.jsonl , webhook:https://siem.example.com/hook/T0KEN?x=1,webhook:http://127.0.0.1:8080/in',
    );
    expect(problems).toEqual([]);
    expect(sinks).toEqual([
      {
        kind: 'file',
        path: '/var/log/clickhouse-bot/audit.jsonl',
        label: 'file:audit.jsonl',
        key: 'file:/var/log/clickhouse-bot/audit.jsonl',
      },
      {
        kind: 'webhook',
        url: 'https://siem.example.com/hook/T0KEN?x=1',
        label: 'webhook:siem.example.com',
        key: 'webhook:siem.example.com:6c4c49709ec41027',
      },
      {
        kind: 'webhook',
        url: 'http://127.0.0.1:8080/in',
        label: 'webhook:127.0.0.1:8080',
        key: 'webhook:127.0.0.1:8080:ce6c6b12f068ebeb',
      },
    ]);
    expect(parseAuditSinks('')).toEqual({ sinks: [], problems: [] });
    // A token in a webhook's path never names anything in Redis.
    expect(parseAuditSinks('webhook:https://siem.example.com/hook/T0KEN').sinks[0]?.key).not.toContain('T0KEN');
  });

  it('allows plain http only to this machine', () => {
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]']) {
      expect(parseAuditSinks(`webhook:http://${host}:9000/x`).problems).toEqual([]);
    }
    expect(parseAuditSinks('webhook:http://siem.example.com/hook/T0KEN').problems).toEqual([
      'has webhook:http://siem.example.com/...: plain http is allowed only to this machine (localhost, 127.0.0.1, ::1); use https://',
    ]);
    expect(parseAuditSinks('webhook:http://10.0.0.1/x').problems).toHaveLength(1);
  });

  it.each([
    'http://127.0.0.1.evil.com/x',
    'http://localhost.evil.com/x',
    'http://localhost%2eevil.com/x',
    'http://127.0.0.1@evil.com/x',
    'http://evil.com\\@127.0.0.1/x',
    'http://127.0.0.1%2f@evil.com/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://localhost./x',
    'http://[::ffff:10.0.0.1]/x',
  ])('refuses plain http to %s: a host that only looks like this machine', (url) => {
    expect(parseAuditSinks(`webhook:${url}`).problems).toHaveLength(1);
  });

  it('names every bad sink, each with the fix', () => {
    const { problems } = parseAuditSinks(
      [
        'syslog:udp://x',
        'file:relative/audit.jsonl',
        'file:/var/log/',
        'webhook:not a url',
        'webhook:ftp://siem.example.com/x',
        'webhook:https://user:pw@siem.example.com/x',
        'file:/tmp/a.jsonl',
        'file:/tmp/a.jsonl',
        'webhook',
      ].join(','),
    );
    expect(problems).toEqual([
      'has "syslog:udp://x": each sink is file:/path/to/audit.jsonl or webhook:https://host/path',
      'has file:relative/audit.jsonl: the file sink needs an absolute path, e.g. file:/var/log/clickhouse-bot/audit.jsonl',
      'has file:/var/log/: that is a directory; name the file, e.g. /var/log/audit.jsonl',
      'has webhook:not a url: the webhook sink needs a full URL, e.g. webhook:https://siem.example.com/hook',
      'has webhook:ftp://siem.example.com/...: only https:// URLs (or http:// to this machine) are allowed',
      'has a webhook URL with a user name or password in it: remove them; bodies are signed with AUDIT_WEBHOOK_SECRET',
      'names file:a.jsonl twice',
      'has webhook:: the webhook sink needs a full URL, e.g. webhook:https://siem.example.com/hook',
    ]);
    expect(problems.join(' ')).not.toContain('pw@');
  });

  it('never echoes the path or query of a bad sink, where a webhook URL carries its token', () => {
    const { problems } = parseAuditSinks(
      [
        'webhok:https://siem.example.com/hook/T0KEN',
        'webhook:siem.example.com/hook/T0KEN',
        'webhook:ftp://siem.example.com/hook?token=T0KEN',
      ].join(','),
    );
    expect(problems).toHaveLength(3);
    expect(problems.join(' ')).not.toContain('T0KEN');
    expect(problems.join(' ')).toContain('siem.example.com');
  });
});

describe('exported events', () => {
  it('carry id, type, ISO time, organization, service, request, actor and channel', () => {
    const event = toAuditEvent(
      {
        id: '1767225600000-0',
        fields: {
          at: String(Date.UTC(2026, 0, 1, 14, 2)),
          action: 'applied',
          changeId: 'req-1',
          actorId: 'U123',
          channelId: 'C9',
          serviceId: 'svc-1',
          serviceName: 'prod',
          summary: 'name: a -> b',
          apiRequestId: 'api-7',
          update: '{"name":"b"}',
          fence: '2',
        },
      },
      ORG,
    );
    expect(event).toEqual({
      id: '1767225600000-0',
      type: 'applied',
      at: '2026-01-01T14:02:00.000Z',
      organization: ORG,
      service: { id: 'svc-1', name: 'prod' },
      requestId: 'req-1',
      actor: 'U123',
      channel: 'C9',
      summary: 'name: a -> b',
      details: { apiRequestId: 'api-7', update: { name: 'b' }, fence: '2' },
    });
  });

  it('carry the id of the organization an entry names (ORGANIZATIONS_FILE), keeping its name in the details', () => {
    const ids: Record<string, string> = { billing: '22222222-3333-4444-8555-666666666666' };
    const entry = { id: '7-1', fields: { action: 'applied', changeId: 'CR-1', organization: 'billing' } };
    const event = toAuditEvent(entry, ORG, (name) => ids[name]);
    expect(event.organization).toBe(ids.billing);
    expect(event.details).toMatchObject({ organization: 'billing' });
    // A name the file no longer has is still said, as the name.
    expect(toAuditEvent({ ...entry, fields: { ...entry.fields, organization: 'gone' } }, ORG).organization).toBe(
      'gone',
    );
  });

  it('accept any type of entry (break-glass, one without a request) and the entry own organization first', () => {
    const event = toAuditEvent(
      { id: '5-1', fields: { action: 'break-glass', actorId: 'U1', organizationId: 'org-b', justification: 'outage' } },
      ORG,
    );
    expect(event).toMatchObject({
      type: 'break-glass',
      at: new Date(5).toISOString(),
      organization: 'org-b',
      service: null,
      requestId: null,
      channel: null,
      details: { justification: 'outage' },
    });
    const reload = toAuditEvent(
      { id: '9-0', fields: policyReloadFields({ at: 9, path: '/etc/p.yaml', result: 'reloaded', digest: 'abc' }) },
      undefined,
    );
    expect(reload).toMatchObject({
      type: 'policy-reloaded',
      actor: 'system',
      organization: null,
      summary: 'approval policy /etc/p.yaml reloaded',
      details: { result: 'reloaded', digest: 'abc' },
    });
  });
});

describe('policy reload events', () => {
  it('say what happened to the file: reloaded, unchanged, refused with its problems, or no file at all', () => {
    expect(policyReloadFields({ at: 1, path: '/etc/p.yaml', result: 'unchanged', digest: 'd' })).toEqual({
      at: '1',
      action: 'policy-reloaded',
      actorId: 'system',
      summary: 'approval policy /etc/p.yaml unchanged',
      result: 'unchanged',
      digest: 'd',
    });
    expect(
      policyReloadFields({
        at: 1,
        path: '/etc/p.yaml',
        result: 'refused',
        problems: ['rules[0] has no approvers', 'x'],
      }),
    ).toMatchObject({
      result: 'refused',
      summary: 'approval policy /etc/p.yaml NOT reloaded: rules[0] has no approvers; x',
    });
    expect(policyReloadFields({ at: 1, path: undefined, result: 'unchanged' }).summary).toBe(
      'approval policy reload asked, but POLICY_FILE is not set',
    );
  });
});

describe('retries and the bound', () => {
  it('back off exponentially, to a ceiling, with jitter taking off at most a fifth', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 0))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(40, 0)).toBe(300_000);
    expect(retryDelayMs(1, 1)).toBe(800);
  });

  it('is near from 80 % and full past the bound', () => {
    expect([79, 80, 100, 101].map((n) => outboxPressure(n, 100))).toEqual(['ok', 'near', 'near', 'full']);
  });
});
