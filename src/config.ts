/**
 * The whole environment as one zod schema, parsed once at start. A bad or missing setting stops
 * the process with one message naming every problem and how to fix it, never a stack trace.
 */
import { z } from 'zod';
import { parseAuditSinks, type AuditSinkSpec } from './core/audit/export.js';
import { isTimeZone } from './core/schedule/cron.js';
import { DURATION_FORMS, readSpokenDuration } from './core/command/duration.js';
import { secretsKeyBytes } from './store/secret-cipher.js';
import { consoleBaseProblem, DEFAULT_CONSOLE_URL } from './core/render/console.js';

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Empty strings in .env files mean "unset", as people expect from `FOO=` lines. */
const optionalText = z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().min(1).optional());

const flag = (fallback: boolean) =>
  z.preprocess(
    (v) => (v === '' || v === undefined ? fallback : v),
    z.union([
      z.boolean(),
      z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v)),
    ]),
  );

/** A word from the environment, lower-cased; `fallback` when unset or empty. A non-string is left for the enum to refuse. */
const lowerCased = (fallback: string) => (v: unknown) =>
  v === '' || v === undefined ? fallback : typeof v === 'string' ? v.toLowerCase() : v;

const integer = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (v) => (v === '' || v === undefined ? fallback : v),
    z.coerce
      .number({ error: `must be a whole number from ${min} to ${max}` })
      .int({ error: `must be a whole number from ${min} to ${max}` })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );

/** A duration in seconds that may be fractional (tests shorten leases to a second or less). */
const seconds = (fallback: number, min: number, max: number) =>
  z.preprocess(
    (v) => (v === '' || v === undefined ? fallback : v),
    z.coerce
      .number({ error: `must be a number of seconds from ${min} to ${max}` })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` }),
  );

/** A duration written as in `for DURATION` ("15m", "1h", "90 minutes"), in ms. */
const spokenDuration = (fallback: string, minMs: number, maxMs: number) =>
  z.preprocess(
    (v) => (v === '' || v === undefined ? fallback : v),
    z.string().transform((text, context) => {
      const reading = readSpokenDuration(text.trim().split(/\s+/u));
      if (reading.kind !== 'duration') {
        context.addIssue({
          code: 'custom',
          message: `must be a duration such as 15m, 1h or 90 minutes. ${DURATION_FORMS}`,
        });
        return z.NEVER;
      }
      if (reading.ms < minMs || reading.ms > maxMs) {
        context.addIssue({
          code: 'custom',
          message: `must be from ${minMs / 60_000} minute(s) to ${maxMs / 3_600_000} hours`,
        });
        return z.NEVER;
      }
      return reading.ms;
    }),
  );

/** `C0OPS=Europe/Berlin,C0DATA=America/New_York`: each channel's default time zone for `at TIME`. */
const channelTimeZones = z.preprocess(
  (v) => (v === undefined ? '' : v),
  z.string().transform((text, context) => {
    const zones: Record<string, string> = {};
    for (const entry of text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const [channel = '', zone = '', ...rest] = entry.split('=').map((part) => part.trim());
      if (!/^[CGD][A-Z0-9]{2,}$/u.test(channel) || rest.length > 0)
        context.addIssue({
          code: 'custom',
          message: `"${entry}" is not CHANNEL_ID=Area/City: write it like C0123ABCD=Europe/Berlin, entries separated by commas`,
        });
      else if (!isTimeZone(zone))
        context.addIssue({
          code: 'custom',
          message: `"${zone}" (for ${channel}) is not a time zone: use an IANA name such as Europe/Berlin`,
        });
      else zones[channel] = zone;
    }
    return zones;
  }),
);

const url = (fallback: string) =>
  z.preprocess((v) => (v === '' || v === undefined ? fallback : v), z.url({ protocol: /^https?$/ }));

/**
 * CONSOLE_URL: the console a service's name links to; unset means ClickHouse Cloud's, `off` or an
 * empty value (`CONSOLE_URL=`) no links. Undefined after parsing means no links.
 */
const consoleUrl = z.preprocess(
  (v) => (v === undefined ? DEFAULT_CONSOLE_URL : typeof v === 'string' ? v.trim() : v),
  z.string().transform((text, context) => {
    if (text === '' || text.toLowerCase() === 'off') return undefined;
    const problem = consoleBaseProblem(text);
    if (problem === undefined) return text;
    context.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  }),
);

/** An address to listen on: an IP address (v4 or v6) or localhost; unset = every interface. */
const bindAddress = z.preprocess(
  (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : v.trim().replace(/^\[(.*)\]$/, '$1')) : v),
  z
    .union([z.ipv4(), z.ipv6(), z.literal('localhost')], {
      error:
        'must be an IP address to listen on (127.0.0.1 for this machine only, 0.0.0.0 or :: for every interface) or localhost',
    })
    .optional(),
);

/** User ids (U..., or W... on Enterprise Grid) and user group ids (S...). */
const SLACK_ID_LIST = /^[UWS][A-Z0-9]{2,}$/;

export interface HostPort {
  host: string;
  port: number;
}

/** `host:port`, or `[v6 address]:port`; undefined when it is neither or the port is out of range. */
function parseHostPort(text: string): HostPort | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

const hostPortList = (example: string) =>
  z.preprocess(
    (v) => {
      if (typeof v !== 'string') return v;
      const items = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return items.length === 0 ? undefined : items;
    },
    z
      .array(z.string())
      .superRefine((items, ctx) => {
        const bad = items.filter((item) => parseHostPort(item) === undefined);
        if (bad.length > 0) {
          ctx.addIssue({
            code: 'custom',
            message: `lists nodes as host:port, comma separated (e.g. ${example}), not ${bad.map((b) => `"${b}"`).join(', ')}`,
          });
        }
      })
      .transform((items) => items.map((item) => parseHostPort(item)).filter((node) => node !== undefined))
      .optional(),
  );

const EnvSchema = z.object({
  SLACK_BOT_TOKEN: z
    .string({ error: 'is required: the bot token (xoxb-...) from your Slack app' })
    .startsWith('xoxb-', {
      error: 'must be a bot token starting with xoxb-',
    }),
  SLACK_SIGNING_SECRET: z
    .string({ error: "is required: the signing secret from your Slack app's Basic Information page" })
    .min(1),
  SLACK_APP_TOKEN: optionalText.refine((v) => v === undefined || v.startsWith('xapp-'), {
    error: 'must be an app-level token starting with xapp- (or unset for HTTP mode)',
  }),
  SLACK_API_URL: url('https://slack.com/api/'),
  SLASH_COMMAND: z.preprocess(
    (v) => (v === '' || v === undefined ? '/clickhouse' : v),
    z.string().regex(/^\/[a-z0-9_-]{1,31}$/, { error: 'must look like /clickhouse' }),
  ),
  PORT: integer(3000, 0, 65535),
  HOST: bindAddress,
  CLICKHOUSE_API_URL: url('https://api.clickhouse.cloud'),
  CLICKHOUSE_KEY_ID: optionalText,
  CLICKHOUSE_KEY_SECRET: optionalText,
  CLICKHOUSE_ORG_ID: optionalText.refine((v) => v === undefined || z.uuid().safeParse(v).success, {
    error: 'must be the organization UUID shown in the ClickHouse Cloud console',
  }),
  CLICKHOUSE_CACHE_SECONDS: integer(10, 0, 3600),
  CLICKHOUSE_TIMEOUT_SECONDS: integer(15, 1, 300),
  /** Demo mode: how long the simulated stopping, starting and awaking last (ms). */
  SIMULATOR_TRANSITION_MS: integer(5000, 0, 600_000),
  REDIS_URL: optionalText.refine((v) => v === undefined || /^rediss?:\/\//.test(v), {
    error: 'must start with redis:// or rediss://',
  }),
  REDIS_CLUSTER: flag(false),
  REDIS_SENTINELS: hostPortList('10.0.0.5:26379,10.0.0.6:26379,10.0.0.7:26379'),
  REDIS_SENTINEL_NAME: z.preprocess(
    (v) => (v === '' || v === undefined ? 'mymaster' : v),
    z
      .string()
      .regex(/^[^\s]+$/, { error: 'must be the master group name from `sentinel monitor <name> ...` (no spaces)' }),
  ),
  APPROVERS: z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    z.array(z.string()).superRefine((ids, ctx) => {
      const bad = ids.filter((id) => !SLACK_ID_LIST.test(id));
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `lists Slack user ids (U... or W...) or user group ids (S...), not ${bad.map((b) => `"${b}"`).join(', ')}`,
        });
      }
    }),
  ),
  ALLOW_SELF_APPROVAL: flag(false),
  POLICY_FILE: optionalText,
  SECURITY_CHANNEL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .trim()
      .regex(/^[CG][A-Z0-9]{2,}$/, { error: 'must be a Slack channel id (C…), like C0SECURITY' })
      .optional(),
  ),
  ORGANIZATIONS_FILE: optionalText,
  CHANGE_TTL_SECONDS: integer(3600, 60, 7 * 24 * 3600),
  APPROVAL_LEASE_SECONDS: seconds(20, 0.5, 600),
  TEMPORARY_MAX_SECONDS: integer(7 * 24 * 3600, 60, 90 * 24 * 3600),
  FOLLOW_MINUTES: integer(10, 1, 120),
  SUMMARY_TZ: z.preprocess(
    (v) => (v === '' || v === undefined ? 'UTC' : v),
    z.string().refine(isTimeZone, { error: 'must be an IANA time zone such as Europe/Berlin' }),
  ),
  SCHEDULE_MIN_INTERVAL_SECONDS: integer(900, 1, 7 * 24 * 3600),
  SCHEDULED_GRACE: spokenDuration('15m', 60_000, 24 * 3_600_000),
  CHANNEL_TIMEZONES: channelTimeZones,
  SCHEDULE_MAX_PER_CHANNEL: integer(10, 1, 1000),
  AUDIT_RETENTION_DAYS: integer(400, 1, 10 * 366),
  AUDIT_SINKS: z.preprocess(
    (v) => (v === undefined ? '' : v),
    z.string().transform((text, ctx) => {
      const { sinks, problems } = parseAuditSinks(text);
      for (const message of problems) ctx.addIssue({ code: 'custom', message });
      return sinks;
    }),
  ),
  AUDIT_WEBHOOK_SECRET: optionalText.refine((v) => v === undefined || (v.length >= 16 && !/\s/.test(v)), {
    error: 'must be at least 16 characters without spaces (e.g. the output of `openssl rand -hex 32`), or unset',
  }),
  SECRETS_KEY: optionalText.refine((v) => v === undefined || secretsKeyBytes(v) !== undefined, {
    error:
      'must be 32 random bytes as 64 hex characters (e.g. the output of `openssl rand -hex 32`) or as base64, or unset',
  }),
  AUDIT_FILE_MAX_BYTES: integer(100 * 1024 * 1024, 1024, 2 ** 40),
  AUDIT_FILE_KEEP: integer(5, 0, 100),
  AUDIT_OUTBOX_MAX: integer(100_000, 10, 10_000_000),
  CONSOLE_URL: consoleUrl,
  COST_ALERTS: optionalText.refine((v) => v === undefined || /^[CG][A-Z0-9]{2,}$/.test(v), {
    error: 'must be the id of the Slack channel (C... or G...) that gets cost alerts, or unset for none',
  }),
  COST_ALERT_ABOVE_CHC: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce
      .number({ error: 'must be a number of ClickHouse Credits a day, or unset for no absolute threshold' })
      .positive({ error: 'must be more than 0 (or unset for no absolute threshold)' })
      .optional(),
  ),
  COST_ALERT_FACTOR: z.preprocess(
    (v) => (v === '' || v === undefined ? 2 : v),
    z.coerce
      .number({ error: 'must be a number from 1.1 to 100' })
      .min(1.1, { error: 'must be at least 1.1' })
      .max(100, { error: 'must be at most 100' }),
  ),
  LOG_LEVEL: z.preprocess(lowerCased('info'), z.enum(LOG_LEVELS)),
  LOG_FORMAT: z.preprocess(
    lowerCased('text'),
    z.enum(['text', 'json'], { error: 'must be text (human-readable lines) or json (one JSON object per line)' }),
  ),
  METRICS: z.preprocess(lowerCased('on'), z.enum(['on', 'off'], { error: 'must be on (GET /metrics) or off' })),
  METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), integer(0, 0, 65535).optional()),
  METRICS_HOST: bindAddress,
  METRICS_TOKEN: optionalText.refine((v) => v === undefined || (v.length >= 16 && !/\s/.test(v)), {
    error: 'must be at least 16 characters without spaces (e.g. the output of `openssl rand -hex 24`), or unset',
  }),
});

/** Checks across settings, on the raw environment so they are reported with every other problem. */
function keyProblems(env: NodeJS.ProcessEnv): string[] {
  const given = (name: string) => (env[name] ?? '').trim() !== '';
  const id = given('CLICKHOUSE_KEY_ID');
  const secret = given('CLICKHOUSE_KEY_SECRET');
  if (id !== secret) {
    const missing = id ? 'CLICKHOUSE_KEY_SECRET' : 'CLICKHOUSE_KEY_ID';
    return [`${missing} is required with the other key setting: set both (real API) or neither (demo mode)`];
  }
  if (id && secret && !given('CLICKHOUSE_ORG_ID')) {
    return ['CLICKHOUSE_ORG_ID is required when CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET are set'];
  }
  return [];
}

function auditProblems(env: NodeJS.ProcessEnv): string[] {
  const webhooks = parseAuditSinks(env.AUDIT_SINKS ?? '').sinks.some((sink) => sink.kind === 'webhook');
  if (webhooks && (env.AUDIT_WEBHOOK_SECRET ?? '').trim() === '') {
    return [
      'AUDIT_WEBHOOK_SECRET is required when AUDIT_SINKS names a webhook: webhook bodies are signed with it (e.g. `openssl rand -hex 32`; give the receiver the same value)',
    ];
  }
  return [];
}

function redisProblems(env: NodeJS.ProcessEnv): string[] {
  const cluster = ['true', '1', 'yes'].includes((env.REDIS_CLUSTER ?? '').trim());
  const sentinel = (env.REDIS_SENTINELS ?? '').split(',').some((s) => s.trim() !== '');
  if (cluster && sentinel) {
    return [
      'REDIS_SENTINELS and REDIS_CLUSTER=true cannot be used together: Sentinel watches one master and its replicas, a Redis Cluster fails over by itself; set REDIS_SENTINELS or REDIS_CLUSTER=true, not both',
    ];
  }
  const path = /^rediss?:\/\/[^/]*(\/[^?#]*)?/.exec((env.REDIS_URL ?? '').trim())?.[1] ?? '';
  if (sentinel && !/^\/?\d*$/.test(path)) {
    return [
      `REDIS_URL names database "${path.slice(1)}": with REDIS_SENTINELS only its user, password and database number (redis://:password@any-host/0) are used`,
    ];
  }
  if (cluster && (env.REDIS_URL ?? '').trim() === '') {
    return [
      'REDIS_URL is required when REDIS_CLUSTER is true: set it to any one node of the cluster, e.g. redis://10.0.0.5:6379',
    ];
  }
  return [];
}

export type Env = z.infer<typeof EnvSchema>;

/** Every setting the bot reads, by name: what .env.example must list. */
export const SETTING_NAMES = Object.keys(EnvSchema.shape) as ReadonlyArray<keyof Env>;

export interface Config {
  slack: {
    botToken: string;
    signingSecret: string;
    appToken: string | undefined;
    apiUrl: string;
    slashCommand: string;
    port: number;
    /** Interface PORT listens on (HOST); every interface when undefined. */
    host: string | undefined;
  };
  /** `demo` when no key is configured: the bot runs against its built-in simulator. */
  clickhouse:
    | {
        mode: 'live';
        apiUrl: string;
        keyId: string;
        keySecret: string;
        orgId: string;
        cacheSeconds: number;
        timeoutMs: number;
      }
    | { mode: 'demo'; cacheSeconds: number; timeoutMs: number; transitionMs: number };
  /**
   * ORGANIZATIONS_FILE: the organizations and the channels bound to each; unset = the one
   * organization above, every channel. `apiUrl` is the default of an organization without api_url.
   */
  organizations: { file: string | undefined; apiUrl: string };
  /** With redisSentinel, only its credentials, database and TLS setting are used (may be unset). */
  redisUrl: string | undefined;
  /** REDIS_URL names one seed node of a Redis Cluster; the bot discovers the others from it. */
  redisCluster: boolean;
  /** The master is found through these Sentinel nodes (REDIS_SENTINELS, REDIS_SENTINEL_NAME). */
  redisSentinel: { sentinels: HostPort[]; name: string } | undefined;
  approvals: {
    approvers: string[];
    allowSelfApproval: boolean;
    changeTtlSeconds: number;
    /** How long a replica owns a request it is applying without renewing (renewed every quarter). */
    leaseMs: number;
    /** The longest a temporary change (`... for DURATION`) may last before the bot reverts it. */
    temporaryMaxMs: number;
    /** The YAML approval policy (POLICY_FILE); unset = one approval from `approvers`. */
    policyFile: string | undefined;
    /** SECURITY_CHANNEL: where every break-glass change is announced too; unset = only its own channel. */
    securityChannel: string | undefined;
  };
  /**
   * How long the bot follows a stop, start, wake or scaling after the API accepted it, reading the
   * service less and less often (FOLLOW_MINUTES), before it says the service is still moving.
   */
  followMs: number;
  summaryTimeZone: string;
  /** CONSOLE_URL: where a service's name links to (its page at `…/services/ID`); undefined: no links. */
  consoleUrl: string | undefined;
  /** Scheduled changes (`at TIME`, docs/scheduled-changes.md). */
  scheduling: {
    /** SCHEDULED_GRACE: a bot that was down at a change's time still applies it this long after. */
    graceMs: number;
    /** CHANNEL_TIMEZONES: the zone `at TIME` is read in, per channel, before the requester's own. */
    channelTimeZones: Readonly<Record<string, string>>;
  };
  /** Schedules may fire at most once per `minIntervalSeconds`; a channel has at most `maxPerChannel`. */
  schedules: { minIntervalSeconds: number; maxPerChannel: number };
  /** Audit entries are kept this long (AUDIT_RETENTION_DAYS), whatever else is recorded. */
  auditRetentionDays: number;
  /**
   * Where audit events are sent besides the store (AUDIT_SINKS): files rotated at `fileMaxBytes`
   * keeping `fileKeep` old ones, webhooks signed with `webhookSecret`; at most `outboxMax` events
   * wait for one sink.
   */
  auditExport: {
    sinks: AuditSinkSpec[];
    webhookSecret: string | undefined;
    fileMaxBytes: number;
    fileKeep: number;
    outboxMax: number;
  };
  /**
   * SECRETS_KEY as written: seals secrets waiting to be revealed (a restored service's password) in
   * Redis with AES-256-GCM. Without it they stay in this process's memory only.
   */
  secretsKey: string | undefined;
  /** COST_ALERTS: the channel that hears of services whose daily spend jumped; undefined: off. */
  costAlerts: { channelId: string; aboveChc: number | undefined; factor: number } | undefined;
  logLevel: LogLevel;
  logFormat: 'text' | 'json';
  /**
   * GET /metrics: off, on the Slack port (PORT), or on a listener of its own (METRICS_PORT; 0 = any
   * free port) on `host` (METRICS_HOST, else HOST); with `token`, only for `Authorization: Bearer`.
   */
  metrics:
    | { enabled: false }
    | { enabled: true; port: number | undefined; host: string | undefined; token: string | undefined };
}

/** Said to someone who starts the bot with no Slack app at all: most likely a first look. */
const PLAYGROUND_HINT =
  'No Slack app yet? `npm run playground` runs the whole bot on this machine with a Slack stand-in in your browser, no tokens needed.';

export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    hint?: string,
  ) {
    super(
      `The bot cannot start: ${problems.length} setting${problems.length === 1 ? '' : 's'} need${problems.length === 1 ? 's' : ''} fixing.\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        '\nSet them in the environment or in a .env file (see .env.example).' +
        (hint ? `\n${hint}` : ''),
    );
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  const problems = [
    ...(parsed.success
      ? []
      : parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'} ${issue.message}`)),
    ...keyProblems(env),
    ...redisProblems(env),
    ...auditProblems(env),
  ];
  const noSlackApp = !env['SLACK_BOT_TOKEN'] && !env['SLACK_SIGNING_SECRET'] && !env['SLACK_APP_TOKEN'];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems, noSlackApp ? PLAYGROUND_HINT : undefined);
  return toConfig(parsed.data);
}

function toConfig(env: Env): Config {
  const common = { cacheSeconds: env.CLICKHOUSE_CACHE_SECONDS, timeoutMs: env.CLICKHOUSE_TIMEOUT_SECONDS * 1000 };
  const { CLICKHOUSE_KEY_ID: keyId, CLICKHOUSE_KEY_SECRET: keySecret, CLICKHOUSE_ORG_ID: orgId } = env;
  return {
    slack: {
      botToken: env.SLACK_BOT_TOKEN,
      signingSecret: env.SLACK_SIGNING_SECRET,
      appToken: env.SLACK_APP_TOKEN,
      apiUrl: env.SLACK_API_URL.endsWith('/') ? env.SLACK_API_URL : `${env.SLACK_API_URL}/`,
      slashCommand: env.SLASH_COMMAND,
      port: env.PORT,
      host: env.HOST,
    },
    clickhouse:
      keyId && keySecret && orgId
        ? { mode: 'live', apiUrl: env.CLICKHOUSE_API_URL, keyId, keySecret, orgId, ...common }
        : { mode: 'demo', transitionMs: env.SIMULATOR_TRANSITION_MS, ...common },
    organizations: { file: env.ORGANIZATIONS_FILE, apiUrl: env.CLICKHOUSE_API_URL },
    redisUrl: env.REDIS_URL,
    redisCluster: env.REDIS_CLUSTER,
    redisSentinel: env.REDIS_SENTINELS ? { sentinels: env.REDIS_SENTINELS, name: env.REDIS_SENTINEL_NAME } : undefined,
    approvals: {
      approvers: env.APPROVERS,
      allowSelfApproval: env.ALLOW_SELF_APPROVAL,
      changeTtlSeconds: env.CHANGE_TTL_SECONDS,
      leaseMs: env.APPROVAL_LEASE_SECONDS * 1000,
      temporaryMaxMs: env.TEMPORARY_MAX_SECONDS * 1000,
      policyFile: env.POLICY_FILE,
      securityChannel: env.SECURITY_CHANNEL,
    },
    followMs: env.FOLLOW_MINUTES * 60_000,
    summaryTimeZone: env.SUMMARY_TZ,
    consoleUrl: env.CONSOLE_URL,
    scheduling: { graceMs: env.SCHEDULED_GRACE, channelTimeZones: env.CHANNEL_TIMEZONES },
    schedules: { minIntervalSeconds: env.SCHEDULE_MIN_INTERVAL_SECONDS, maxPerChannel: env.SCHEDULE_MAX_PER_CHANNEL },
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    secretsKey: env.SECRETS_KEY,
    auditExport: {
      sinks: env.AUDIT_SINKS,
      webhookSecret: env.AUDIT_WEBHOOK_SECRET,
      fileMaxBytes: env.AUDIT_FILE_MAX_BYTES,
      fileKeep: env.AUDIT_FILE_KEEP,
      outboxMax: env.AUDIT_OUTBOX_MAX,
    },
    costAlerts: env.COST_ALERTS
      ? { channelId: env.COST_ALERTS, aboveChc: env.COST_ALERT_ABOVE_CHC, factor: env.COST_ALERT_FACTOR }
      : undefined,
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    metrics:
      env.METRICS === 'off'
        ? { enabled: false }
        : { enabled: true, port: env.METRICS_PORT, host: env.METRICS_HOST ?? env.HOST, token: env.METRICS_TOKEN },
  };
}
