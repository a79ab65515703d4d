/**
 * Audit export: which sinks AUDIT_SINKS names, what one exported event looks like, and when a
 * sink is retried. Pure: the delivery worker (audit/) and the sinks (audit-sinks/) do the I/O.
 */
import { createHash } from 'node:crypto';

/** One entry of the audit trail as the store holds it: its stream id and its fields, as written. */
export interface AuditRecord {
  /** Stream entry id ("1732530000000-0"); unique within one bot installation, in order. */
  id: string;
  fields: Readonly<Record<string, string>>;
}

/** What a sink receives: one JSON object per audit event. Keys are interface: never rename them. */
export interface AuditEvent {
  /** Stable across redeliveries: receivers de-duplicate on it. */
  id: string;
  /** requested, approved, applied, failed, rejected, cancelled, expired, stale, policy-reloaded, ... */
  type: string;
  /** ISO 8601, UTC. */
  at: string;
  organization: string | null;
  service: { id: string; name: string } | null;
  requestId: string | null;
  /** Slack user id of who acted, or "system" for the bot's own steps. */
  actor: string;
  channel: string | null;
  summary: string;
  /** Every other field the entry carries (message, apiRequestId, reason, ticket, update, ...). */
  details: Record<string, unknown>;
}

/** Fields mapped to the event's own keys; everything else goes to `details`. */
const OWN_FIELDS = new Set([
  'at',
  'action',
  'changeId',
  'actorId',
  'channelId',
  'serviceId',
  'serviceName',
  'summary',
  'organizationId',
  'orgId',
]);
/** Fields stored as JSON text, exported as the JSON they hold. */
const JSON_FIELDS = new Set(['update']);

/**
 * The exported form of any audit entry, whatever its type: a type added later (break-glass)
 * needs no change here. `organizationId` is the configured organization, for entries that name
 * none; an entry naming one (`organization`, ORGANIZATIONS_FILE's name) gets its id from
 * `organizationIdOf`.
 */
export function toAuditEvent(
  record: AuditRecord,
  organizationId: string | undefined,
  organizationIdOf: (name: string) => string | undefined = () => undefined,
): AuditEvent {
  const f = record.fields;
  const details: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(f)) {
    if (OWN_FIELDS.has(name) || value === '') continue;
    details[name] = JSON_FIELDS.has(name) ? parsedOrText(value) : value;
  }
  const serviceId = nonEmpty(f.serviceId);
  // An entry of a request of a named organization: its id (the name stays in details), else the name.
  const named = (name: string | undefined) => {
    const given = nonEmpty(name);
    return given === undefined ? undefined : (organizationIdOf(given) ?? given);
  };
  return {
    id: record.id,
    type: nonEmpty(f.action) ?? 'unknown',
    at: new Date(eventTime(record)).toISOString(),
    organization: nonEmpty(f.organizationId) ?? nonEmpty(f.orgId) ?? named(f.organization) ?? organizationId ?? null,
    service: serviceId === undefined ? null : { id: serviceId, name: f.serviceName ?? '' },
    requestId: nonEmpty(f.changeId) ?? null,
    actor: nonEmpty(f.actorId) ?? 'system',
    channel: nonEmpty(f.channelId) ?? null,
    summary: f.summary ?? '',
    details,
  };
}

/** The entry's own time (the app's clock), else the time in its stream id. */
function eventTime(record: AuditRecord): number {
  const at = Number(record.fields.at);
  if (record.fields.at !== undefined && Number.isFinite(at) && at >= 0) return at;
  const fromId = Number(record.id.split('-')[0]);
  return Number.isFinite(fromId) ? fromId : 0;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function parsedOrText(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Fields of the audit entry written when the approval policy file is reloaded (or refused). */
export function policyReloadFields(outcome: {
  at: number;
  path: string | undefined;
  result: 'reloaded' | 'unchanged' | 'refused';
  digest?: string | undefined;
  problems?: readonly string[];
}): Record<string, string> {
  const summary =
    outcome.path === undefined
      ? 'approval policy reload asked, but POLICY_FILE is not set'
      : outcome.result === 'refused'
        ? `approval policy ${outcome.path} NOT reloaded: ${(outcome.problems ?? []).join('; ')}`
        : `approval policy ${outcome.path} ${outcome.result}`;
  return {
    at: String(outcome.at),
    action: 'policy-reloaded',
    actorId: 'system',
    summary,
    result: outcome.result,
    ...(outcome.digest === undefined ? {} : { digest: outcome.digest }),
  };
}

// --- Sinks -----------------------------------------------------------------------------------

export type AuditSinkSpec =
  | { kind: 'file'; path: string; label: string; key: string }
  | { kind: 'webhook'; url: string; label: string; key: string };

/**
 * AUDIT_SINKS: `file:/abs/path.jsonl` and `webhook:https://host/path`, comma separated. Returns
 * the sinks, or every problem as a sentence. Plain http is allowed only to this machine
 * (loopback), so events and their signature never cross a network in clear text.
 */
export function parseAuditSinks(text: string): { sinks: AuditSinkSpec[]; problems: string[] } {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  const sinks: AuditSinkSpec[] = [];
  const problems: string[] = [];
  for (const item of items) {
    const parsed = parseSink(item);
    if (typeof parsed === 'string') problems.push(parsed);
    else if (sinks.some((sink) => sink.key === parsed.key)) problems.push(`names ${parsed.label} twice`);
    else sinks.push(parsed);
  }
  return { sinks, problems };
}

function parseSink(item: string): AuditSinkSpec | string {
  const colon = item.indexOf(':');
  const kind = colon === -1 ? item : item.slice(0, colon);
  const target = colon === -1 ? '' : item.slice(colon + 1).trim();
  if (kind === 'file') return fileSink(target);
  if (kind === 'webhook') return webhookSink(target);
  return `has "${withoutPath(item)}": each sink is file:/path/to/audit.jsonl or webhook:https://host/path`;
}

function fileSink(path: string): AuditSinkSpec | string {
  if (!path.startsWith('/')) {
    return `has file:${shorten(path)}: the file sink needs an absolute path, e.g. file:/var/log/clickhouse-bot/audit.jsonl`;
  }
  if (path.endsWith('/'))
    return `has file:${shorten(path)}: that is a directory; name the file, e.g. ${path}audit.jsonl`;
  return { kind: 'file', path, label: `file:${path.slice(path.lastIndexOf('/') + 1)}`, key: `file:${path}` };
}

function webhookSink(target: string): AuditSinkSpec | string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return `has webhook:${withoutPath(target)}: the webhook sink needs a full URL, e.g. webhook:https://siem.example.com/hook`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `has webhook:${withoutPath(target)}: only https:// URLs (or http:// to this machine) are allowed`;
  }
  if (url.username !== '' || url.password !== '') {
    return 'has a webhook URL with a user name or password in it: remove them; bodies are signed with AUDIT_WEBHOOK_SECRET';
  }
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
    return `has webhook:http://${url.host}/...: plain http is allowed only to this machine (localhost, 127.0.0.1, ::1); use https://`;
  }
  // The key names the sink's cursor and lease in Redis: the URL's path may carry a token, so it is
  // hashed there (distinct per URL, never readable back).
  const digest = createHash('sha256').update(url.href).digest('hex').slice(0, 16);
  return { kind: 'webhook', url: url.href, label: `webhook:${url.host}`, key: `webhook:${url.host}:${digest}` };
}

/** localhost, 127.0.0.0/8 and ::1 (URL keeps IPv6 hosts in brackets). */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * A bad webhook item up to its host (`ftp://siem.example.com/...`): a webhook URL's path or query
 * often carries its token, however short it is.
 */
function withoutPath(text: string): string {
  const upToHost = /^(?:[^/?#]*:\/\/)?[^/?#]*/.exec(text)?.[0] ?? '';
  return shorten(upToHost.length < text.length ? `${upToHost}/...` : text);
}

/** Enough of a bad item to find it, without echoing a long URL that may carry a token. */
function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

// --- Retries ---------------------------------------------------------------------------------

/** Waits between attempts of a failing sink: 1 s doubling to 5 min, with up to 20 % less (jitter given). */
export function retryDelayMs(failuresInARow: number, jitter: number, base = 1_000, max = 300_000): number {
  const exponential = Math.min(max, base * 2 ** Math.max(0, Math.min(30, failuresInARow - 1)));
  return Math.round(exponential * (1 - 0.2 * Math.min(1, Math.max(0, jitter))));
}

/** How full a sink's share of the outbox is: ok, close to the bound (from 80 %), or past it. */
export function outboxPressure(queued: number, max: number): 'ok' | 'near' | 'full' {
  if (queued > max) return 'full';
  return queued >= max * 0.8 ? 'near' : 'ok';
}
