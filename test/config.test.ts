import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

const minimal = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'secret' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('starts in demo mode with the documented defaults when only Slack is configured', () => {
    const config = loadConfig(minimal);
    expect(config.clickhouse).toEqual({ mode: 'demo', cacheSeconds: 10, timeoutMs: 15_000, transitionMs: 5_000 });
    expect(config.slack).toMatchObject({
      apiUrl: 'https://slack.com/api/',
      port: 3000,
      slashCommand: '/clickhouse',
      appToken: undefined,
    });
    expect(config.redisUrl).toBeUndefined();
    expect(config.approvals).toEqual({
      approvers: [],
      allowSelfApproval: false,
      changeTtlSeconds: 3600,
      leaseMs: 20_000,
      temporaryMaxMs: 7 * 24 * 3600 * 1000,
      policyFile: undefined,
    });
    expect(config.summaryTimeZone).toBe('UTC');
    expect(config.logLevel).toBe('info');
    expect(config.followMs).toBe(10 * 60_000);
  });

  it('scheduled changes: SCHEDULED_GRACE as a duration (15m by default), CHANNEL_TIMEZONES per channel', () => {
    expect(loadConfig(minimal).scheduling).toEqual({ graceMs: 15 * 60_000, channelTimeZones: {} });
    const config = loadConfig({
      ...minimal,
      SCHEDULED_GRACE: '1h 30m',
      CHANNEL_TIMEZONES: 'C0OPS=Europe/Berlin, C0DATA = America/New_York',
    });
    expect(config.scheduling).toEqual({
      graceMs: 90 * 60_000,
      channelTimeZones: { C0OPS: 'Europe/Berlin', C0DATA: 'America/New_York' },
    });
    expect(problems({ ...minimal, SCHEDULED_GRACE: 'soon' })).toEqual([
      expect.stringMatching(/^SCHEDULED_GRACE must be a duration such as 15m, 1h or 90 minutes/) as unknown,
    ]);
    expect(problems({ ...minimal, SCHEDULED_GRACE: '3d' })).toEqual([
      'SCHEDULED_GRACE must be from 1 minute(s) to 24 hours',
    ]);
    expect(problems({ ...minimal, CHANNEL_TIMEZONES: 'C0OPS=Mars/Olympus,general=UTC' })).toEqual([
      'CHANNEL_TIMEZONES "Mars/Olympus" (for C0OPS) is not a time zone: use an IANA name such as Europe/Berlin',
      'CHANNEL_TIMEZONES "general=UTC" is not CHANNEL_ID=Area/City: write it like C0123ABCD=Europe/Berlin, entries separated by commas',
    ]);
  });

  it('takes FOLLOW_MINUTES in whole minutes, from 1 to 120', () => {
    expect(loadConfig({ ...minimal, FOLLOW_MINUTES: '3' }).followMs).toBe(180_000);
    expect(() => loadConfig({ ...minimal, FOLLOW_MINUTES: '0' })).toThrow(/FOLLOW_MINUTES.*at least 1/);
    expect(() => loadConfig({ ...minimal, FOLLOW_MINUTES: '1.5' })).toThrow(/FOLLOW_MINUTES.*whole number/);
  });

  it('takes the approval lease in seconds, fractions allowed, and refuses one too short to be safe', () => {
    expect(loadConfig({ ...minimal, APPROVAL_LEASE_SECONDS: '1.5' }).approvals.leaseMs).toBe(1_500);
    expect(() => loadConfig({ ...minimal, APPROVAL_LEASE_SECONDS: '0.1' })).toThrow(
      /APPROVAL_LEASE_SECONDS.*at least 0.5/,
    );
    expect(() => loadConfig({ ...minimal, APPROVAL_LEASE_SECONDS: 'soon' })).toThrow(
      /APPROVAL_LEASE_SECONDS.*number of seconds/,
    );
  });

  it('reads the log format and the metrics switches, and refuses values it does not know', () => {
    expect(loadConfig(minimal)).toMatchObject({ logFormat: 'text', metrics: { enabled: true, port: undefined } });
    expect(loadConfig({ ...minimal, LOG_FORMAT: 'JSON', METRICS_PORT: '9464' })).toMatchObject({
      logFormat: 'json',
      metrics: { enabled: true, port: 9464 },
    });
    expect(loadConfig({ ...minimal, METRICS: 'off', METRICS_PORT: '9464' }).metrics).toEqual({ enabled: false });
    expect(loadConfig({ ...minimal, METRICS_PORT: '' }).metrics).toEqual({ enabled: true, port: undefined });
    const refused = problems({ ...minimal, LOG_FORMAT: 'yaml', METRICS: 'maybe', METRICS_PORT: '70000' });
    expect(refused).toEqual([
      expect.stringMatching(/^LOG_FORMAT must be text .* or json/),
      expect.stringMatching(/^METRICS must be on .* or off/),
      expect.stringMatching(/^METRICS_PORT must be at most 65535/),
    ]);
  });

  it('reads where to listen (HOST, METRICS_HOST) and the metrics token, and refuses what cannot be one', () => {
    expect(loadConfig(minimal).slack.host).toBeUndefined();
    const config = loadConfig({ ...minimal, HOST: '127.0.0.1', METRICS_PORT: '9464', METRICS_TOKEN: 'a'.repeat(16) });
    expect(config.slack.host).toBe('127.0.0.1');
    // The metrics listener follows HOST unless METRICS_HOST says otherwise.
    expect(config.metrics).toEqual({ enabled: true, port: 9464, host: '127.0.0.1', token: 'a'.repeat(16) });
    expect(loadConfig({ ...minimal, HOST: '0.0.0.0', METRICS_HOST: '[::1]' }).metrics).toMatchObject({ host: '::1' });
    expect(loadConfig({ ...minimal, HOST: 'localhost', METRICS_HOST: '' }).metrics).toMatchObject({
      host: 'localhost',
    });
    expect(problems({ ...minimal, HOST: 'example.com', METRICS_HOST: '300.1.1.1', METRICS_TOKEN: 'short' })).toEqual([
      expect.stringMatching(/^HOST must be an IP address to listen on \(127\.0\.0\.1 for this machine only/),
      expect.stringMatching(/^METRICS_HOST must be an IP address to listen on/),
      expect.stringMatching(/^METRICS_TOKEN must be at least 16 characters without spaces/),
    ]);
  });

  it('uses the real API when key, secret and organization are set', () => {
    const config = loadConfig({
      ...minimal,
      CLICKHOUSE_KEY_ID: 'id',
      CLICKHOUSE_KEY_SECRET: 'key-secret',
      CLICKHOUSE_ORG_ID: '11111111-2222-4333-8444-555555555555',
      CLICKHOUSE_CACHE_SECONDS: '0',
      APPROVERS: 'U123ABC, S456DEF',
      ALLOW_SELF_APPROVAL: 'true',
      POLICY_FILE: ' /etc/chbot/policy.yaml ',
    });
    expect(config.clickhouse).toMatchObject({
      mode: 'live',
      apiUrl: 'https://api.clickhouse.cloud',
      orgId: '11111111-2222-4333-8444-555555555555',
      cacheSeconds: 0,
    });
    expect(config.approvals).toMatchObject({
      approvers: ['U123ABC', 'S456DEF'],
      allowSelfApproval: true,
      policyFile: '/etc/chbot/policy.yaml',
    });
  });

  it('names every problem at once, with how to fix it', () => {
    const found = problems({
      SLACK_BOT_TOKEN: 'xoxp-user',
      CLICKHOUSE_KEY_ID: 'id',
      PORT: 'eighty',
      APPROVERS: 'bob',
      SUMMARY_TZ: 'Mars/Base',
      REDIS_URL: 'localhost:6379',
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^SLACK_BOT_TOKEN .*xoxb-/),
        expect.stringMatching(/^SLACK_SIGNING_SECRET is required/),
        expect.stringMatching(/^PORT /),
        expect.stringMatching(/^APPROVERS .*U\.\.\./),
        expect.stringMatching(/^SUMMARY_TZ .*IANA/),
        expect.stringMatching(/^REDIS_URL .*redis:\/\//),
        expect.stringMatching(/^CLICKHOUSE_KEY_SECRET is required/),
      ]),
    );
    expect(found).toHaveLength(7);
  });

  it('requires the organization id with a key, and a UUID there', () => {
    expect(problems({ ...minimal, CLICKHOUSE_KEY_ID: 'id', CLICKHOUSE_KEY_SECRET: 's' })).toEqual([
      'CLICKHOUSE_ORG_ID is required when CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET are set',
    ]);
    expect(problems({ ...minimal, CLICKHOUSE_ORG_ID: 'my-org' })[0]).toMatch(
      /^CLICKHOUSE_ORG_ID must be the organization UUID/,
    );
  });

  it('treats empty lines in .env as unset', () => {
    const config = loadConfig({
      ...minimal,
      SLACK_APP_TOKEN: '',
      REDIS_URL: '',
      PORT: '',
      CLICKHOUSE_KEY_ID: '',
      CLICKHOUSE_KEY_SECRET: '',
    });
    expect(config.slack.appToken).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.clickhouse.mode).toBe('demo');
  });

  it('says in one message what to fix, without a stack trace', () => {
    let message = '';
    try {
      loadConfig({});
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    expect(message).toContain('The bot cannot start: 2 settings need fixing.');
    expect(message).toContain('.env.example');
    expect(message).not.toMatch(/\bat \w+ \(/);
    // Someone with no Slack app at all is shown the way to see the bot without one.
    expect(message).toContain('`npm run playground`');
  });

  it('suggests the playground only to someone with no Slack app at all', () => {
    let message = '';
    try {
      loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: '' });
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    expect(message).toContain('SLACK_SIGNING_SECRET');
    expect(message).not.toContain('playground');
  });
});

describe('audit export settings', () => {
  it('default to no sinks, 100 MiB files keeping 5, and 100,000 waiting events', () => {
    expect(loadConfig(minimal).auditExport).toEqual({
      sinks: [],
      webhookSecret: undefined,
      fileMaxBytes: 104_857_600,
      fileKeep: 5,
      outboxMax: 100_000,
    });
  });

  it('reads sinks and their settings', () => {
    const config = loadConfig({
      ...minimal,
      AUDIT_SINKS: 'file:/var/log/clickhouse-bot/audit.jsonl,webhook:https://siem.example.com/hook',
      AUDIT_WEBHOOK_SECRET: 'a'.repeat(32),
      AUDIT_FILE_MAX_BYTES: '2048',
      AUDIT_FILE_KEEP: '0',
      AUDIT_OUTBOX_MAX: '500',
    });
    expect(config.auditExport).toMatchObject({
      fileMaxBytes: 2048,
      fileKeep: 0,
      outboxMax: 500,
      webhookSecret: 'a'.repeat(32),
    });
    expect(config.auditExport.sinks.map((sink) => sink.label)).toEqual([
      'file:audit.jsonl',
      'webhook:siem.example.com',
    ]);
  });

  it('names every problem at once', () => {
    expect(
      problems({
        ...minimal,
        AUDIT_SINKS: 'file:audit.jsonl,webhook:http://siem.example.com/hook,kafka:x',
        AUDIT_FILE_MAX_BYTES: '10',
        AUDIT_FILE_KEEP: '-1',
        AUDIT_OUTBOX_MAX: 'lots',
      }),
    ).toEqual([
      expect.stringMatching(/^AUDIT_SINKS has file:audit.jsonl: the file sink needs an absolute path/),
      expect.stringMatching(
        /^AUDIT_SINKS has webhook:http:\/\/siem.example.com\/...: plain http is allowed only to this machine/,
      ),
      expect.stringMatching(/^AUDIT_SINKS has "kafka:x": each sink is file:/),
      'AUDIT_FILE_MAX_BYTES must be at least 1024',
      'AUDIT_FILE_KEEP must be at least 0',
      'AUDIT_OUTBOX_MAX must be a whole number from 10 to 10000000',
    ]);
  });

  it('requires a long enough webhook secret with a webhook sink', () => {
    expect(problems({ ...minimal, AUDIT_SINKS: 'webhook:https://siem.example.com/hook' })).toEqual([
      expect.stringMatching(/^AUDIT_WEBHOOK_SECRET is required when AUDIT_SINKS names a webhook/),
    ]);
    expect(
      problems({ ...minimal, AUDIT_SINKS: 'webhook:https://siem.example.com/hook', AUDIT_WEBHOOK_SECRET: 'short' }),
    ).toEqual([expect.stringMatching(/^AUDIT_WEBHOOK_SECRET must be at least 16 characters/)]);
    expect(problems({ ...minimal, AUDIT_SINKS: 'file:/tmp/a.jsonl' })).toEqual([]);
  });
});

describe('CONSOLE_URL', () => {
  it('links to ClickHouse Cloud by default; off or empty means no links; another console is kept as given', () => {
    expect(loadConfig(minimal).consoleUrl).toBe('https://console.clickhouse.cloud');
    expect(loadConfig({ ...minimal, CONSOLE_URL: 'off' }).consoleUrl).toBeUndefined();
    expect(loadConfig({ ...minimal, CONSOLE_URL: 'OFF' }).consoleUrl).toBeUndefined();
    expect(loadConfig({ ...minimal, CONSOLE_URL: '' }).consoleUrl).toBeUndefined();
    expect(loadConfig({ ...minimal, CONSOLE_URL: ' https://console.example.com/ch/ ' }).consoleUrl).toBe(
      'https://console.example.com/ch/',
    );
  });

  it.each([
    'console.clickhouse.cloud',
    'ftp://console.example.com',
    'javascript:alert(1)',
    'https://console.example.com|<!channel>',
    'https://console.example.com/a b',
    'https://console.example.com/?next=',
    'https://user:pw@console.example.com',
  ])('refuses %j with a sentence naming the setting and what it takes', (value) => {
    const found = problems({ ...minimal, CONSOLE_URL: value });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^CONSOLE_URL .*http\(s\) address of the ClickHouse Cloud console.*or off for no links/);
  });
});
