/**
 * Every renderer fed seeded hostile data wherever data reaches it: service records from the API
 * (names, ids, states, versions, hosts, IP descriptions, endpoint ids, tags), change requests and
 * their outcomes, API error messages, audit entries, schedules, drift between summaries. Nothing
 * may throw, no rendered mrkdwn may carry a control sequence the data smuggled in (only the bot's
 * own dates and mentions of the real requester/approver ids), and every message must still fit
 * Slack's Block Kit limits so Slack does not refuse it.
 */
import { backupsBlocks } from '../../src/core/render/backups.js';
import { healthBlocks } from '../../src/core/render/health.js';
import { keysBlocks } from '../../src/core/render/keys.js';
import { membersBlocks, rolesBlocks } from '../../src/core/render/members.js';
import { queryEndpointBlocks } from '../../src/core/render/query-endpoint.js';
import { scalingScheduleBlocks } from '../../src/core/render/scaling-schedule.js';
import { upgradeWindowBlocks } from '../../src/core/render/upgrade-window.js';
import { ApiKeySchema, type ApiKey } from '../../src/core/access/api-key.js';
import { MemberSchema, RoleSchema } from '../../src/core/access/member.js';
import { BackupSchema } from '../../src/core/service/backup.js';
import { QueryEndpointSchema } from '../../src/core/service/query-endpoint.js';
import { ScalingScheduleSchema } from '../../src/core/service/scaling-schedule.js';
import { describe, expect, it } from 'vitest';
import { requestMessage } from '../../src/core/render/change.js';
import { CloudApiError, type CloudErrorKind } from '../../src/core/service/api-error.js';
import { ServiceRecordSchema, type ServiceRecord } from '../../src/core/service/schema.js';
import { planChange } from '../../src/core/change/plan.js';
import { CHANGE_STATUSES, type ChangePlan, type ChangeRequest } from '../../src/core/change/types.js';
import { changeRequestBlocks, outcomeText, pendingBlocks } from '../../src/core/render/change.js';
import { requesterNewsMessage } from '../../src/core/render/requester.js';
import { rejectView } from '../../src/core/render/reject-form.js';
import type { RequesterNews } from '../../src/core/approval/types.js';
import { mention } from '../../src/core/render/people.js';
import { cloudErrorSentence, cloudErrorText, resolutionText } from '../../src/core/render/errors.js';
import { helpBlocks, invalidBlocks } from '../../src/core/render/help.js';
import { historyBlocks } from '../../src/core/render/history.js';
import { editMetadata, editView } from '../../src/core/render/modal.js';
import { section } from '../../src/core/render/mrkdwn.js';
import { scheduleAddedBlocks, scheduleListBlocks } from '../../src/core/render/schedule.js';
import { listBlocks, serviceBlocks, serviceLine } from '../../src/core/render/service.js';
import {
  attributeDrift,
  diffKeys,
  diffSnapshots,
  keysSection,
  summaryFailureMessage,
  summaryMessages,
  takeSnapshot,
} from '../../src/core/summary/index.js';
import type { AuditAction, AuditEntry } from '../../src/core/change/audit.js';
import { blockKitViolations, modalViolations } from '../core/render/block-kit.js';
import { hostileString, leaks, mrkdwnOf, prng, shown, type Rng } from './hostile.js';

const REQUESTER = 'U0REQUESTER';
const APPROVER = 'U0APPROVER';
const ALLOWED = [REQUESTER, APPROVER];
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const ACTIONS: AuditAction[] = [
  'requested',
  'approved',
  'applied',
  'failed',
  'rejected',
  'cancelled',
  'expired',
  'stale',
];
const ERROR_KINDS: CloudErrorKind[] = ['http', 'rate-limited', 'timeout', 'network', 'bad-response', 'invalid-request'];

/** Mostly short hostile strings, sometimes huge ones. */
const data = (rng: Rng) => hostileString(rng, rng.chance(0.1) ? 20_000 : 300);
const maybe = <T>(rng: Rng, value: () => T): T | undefined => (rng.chance(0.8) ? value() : undefined);

/** A record as the client would hand it over: raw JSON parsed by the real schema. */
function hostileService(rng: Rng, i: number): ServiceRecord {
  const text = () => data(rng);
  return ServiceRecordSchema.parse({
    id: rng.chance(0.5) ? `5e000000-0000-4000-8000-${String(i).padStart(12, '0')}` : `${i}${text()}`,
    name: text(),
    provider: maybe(rng, text),
    region: maybe(rng, text),
    state: maybe(rng, () => rng.pick(['running', 'stopped', 'idle', text()])),
    tier: maybe(rng, () => rng.pick(['production', 'development', text()])),
    releaseChannel: maybe(rng, () => rng.pick(['slow', 'default', 'fast', text()])),
    clickhouseVersion: maybe(rng, text),
    endpoints: maybe(rng, () => [
      {
        protocol: rng.pick(['https', 'mysql', text()]),
        host: text(),
        port: rng.int(70_000),
        username: text(),
        enabled: rng.chance(0.7),
      },
      { protocol: 'nativesecure', host: text(), port: 9440 },
    ]),
    numReplicas: maybe(rng, () => rng.int(20)),
    minTotalMemoryGb: maybe(rng, () => rng.int(500)),
    maxTotalMemoryGb: maybe(rng, () => rng.int(500)),
    idleScaling: maybe(rng, () => rng.chance(0.5)),
    idleTimeoutMinutes: maybe(rng, () => rng.int(100)),
    autoscalingMode: maybe(rng, text),
    ipAccessList: maybe(rng, () =>
      Array.from({ length: rng.int(rng.chance(0.1) ? 300 : 5) }, () => ({
        source: rng.pick(['0.0.0.0/0', '10.0.0.0/8', text()]),
        description: maybe(rng, text),
      })),
    ),
    createdAt: maybe(rng, text),
    privateEndpointIds: maybe(rng, () => Array.from({ length: rng.int(4) }, text)),
    availablePrivateEndpointIds: maybe(rng, () => Array.from({ length: rng.int(rng.chance(0.05) ? 250 : 4) }, text)),
    hasTransparentDataEncryption: maybe(rng, () => rng.chance(0.5)),
    transparentDataEncryptionKeyId: maybe(rng, text),
    isReadonly: maybe(rng, () => rng.chance(0.5)),
    tags: maybe(rng, () => Array.from({ length: rng.int(4) }, () => ({ key: text(), value: maybe(rng, text) }))),
  });
}

/** A plan as planChange makes it for a hostile service and hostile (but accepted) input, or a hand-made one. */
function hostilePlan(rng: Rng, service: ServiceRecord): ChangePlan {
  const planned = planChange(service, {
    name: rng.pick(['renamed', 'a b_c-d']),
    ipAdd: [{ source: rng.pick(['0.0.0.0/0', '192.0.2.1', '2001:db8::/32']), description: data(rng).slice(0, 255) }],
    ...(rng.chance(0.5) ? { mysqlEndpoint: rng.chance(0.5) } : {}),
  });
  if (planned.ok) return planned.plan;
  return {
    serviceId: service.id,
    serviceName: service.name,
    update: { name: 'renamed' },
    changes: Array.from({ length: 1 + rng.int(rng.chance(0.05) ? 200 : 4) }, () => ({
      field: 'name' as const,
      label: data(rng),
      before: data(rng),
      after: data(rng),
    })),
    warnings: Array.from({ length: rng.int(3) }, () => data(rng)),
    before: { name: service.name },
  };
}

function hostileRequest(rng: Rng, plan: ChangePlan): ChangeRequest {
  const status = rng.pick(CHANGE_STATUSES);
  return {
    id: rng.chance(0.7) ? `CR-${rng.int(1e10).toString(16).toUpperCase().padStart(10, '0')}` : data(rng),
    channelId: 'C0CHANNEL',
    // Ids come from Slack's signed payloads; one that is not a Slack id must show as text.
    requesterId: rng.chance(0.9) ? REQUESTER : data(rng),
    plan,
    createdAt: NOW,
    expiresAt: NOW + 3_600_000,
    status,
    ...(status === 'pending' ? {} : { decidedBy: rng.chance(0.9) ? APPROVER : data(rng), decidedAt: NOW + 1_000 }),
    ...(rng.chance(0.6)
      ? { outcome: { message: data(rng), apiRequestId: data(rng), status: rng.pick([200, 400, 403, 500]) } }
      : {}),
  };
}

function hostileError(rng: Rng): CloudApiError {
  return new CloudApiError(rng.pick(ERROR_KINDS), data(rng), {
    ...(rng.chance(0.8) ? { status: rng.pick([400, 401, 403, 404, 409, 418, 500, 503]) } : {}),
    ...(rng.chance(0.8) ? { apiMessage: data(rng) } : {}),
    ...(rng.chance(0.8) ? { requestId: data(rng) } : {}),
    method: 'PATCH',
    path: data(rng),
  });
}

function hostileAudit(rng: Rng, service: ServiceRecord): AuditEntry {
  return {
    id: `${rng.int(1e6)}-0`,
    at: NOW - rng.int(1e6),
    action: rng.pick(ACTIONS),
    changeId: rng.chance(0.5) ? 'CR-0000000001' : data(rng),
    actorId: rng.chance(0.8) ? rng.pick(ALLOWED) : data(rng),
    channelId: 'C0CHANNEL',
    serviceId: rng.chance(0.5) ? service.id : data(rng),
    serviceName: rng.chance(0.5) ? service.name : data(rng),
    summary: rng.chance(0.5) ? `Name: ${data(rng)} → ${data(rng)}; IP access: absent → ${data(rng)}` : data(rng),
    ...(rng.chance(0.5) ? { message: data(rng) } : {}),
    ...(rng.chance(0.5) ? { apiRequestId: data(rng) } : {}),
  };
}

/** A changed copy of a service, so the summary has drift of every kind to describe. */
function drifted(rng: Rng, service: ServiceRecord): ServiceRecord {
  return ServiceRecordSchema.parse({
    ...service,
    name: rng.chance(0.5) ? data(rng) : service.name,
    releaseChannel: rng.pick(['slow', 'fast', data(rng)]),
    endpoints: [{ protocol: 'mysql', host: data(rng), enabled: rng.chance(0.5) }],
    ipAccessList: [{ source: data(rng), description: data(rng) }],
    privateEndpointIds: [data(rng)],
    transparentDataEncryptionKeyId: data(rng),
  });
}

interface Rendered {
  what: string;
  blocks: readonly unknown[];
  /** Notification texts (Slack parses them for mentions too). */
  texts?: string[];
  modal?: unknown;
}

function renderAll(rng: Rng, i: number): Rendered[] {
  const services = Array.from({ length: 1 + rng.int(rng.chance(0.05) ? 60 : 4) }, (_, n) =>
    hostileService(rng, i * 100 + n),
  );
  const service = services[0] as ServiceRecord;
  const plan = hostilePlan(rng, service);
  const request = hostileRequest(rng, plan);
  const error = hostileError(rng);
  const audit = Array.from({ length: 1 + rng.int(rng.chance(0.05) ? 80 : 5) }, () => hostileAudit(rng, service));
  const filters = Array.from({ length: rng.int(3) }, () => data(rng));
  const schedule = {
    id: data(rng),
    channelId: 'C0CHANNEL',
    cron: rng.pick(['0 9 * * 1-5', data(rng)]),
    timeZone: rng.pick(['UTC', data(rng)]),
    filters,
    createdBy: REQUESTER,
    createdAt: NOW,
  };
  const before = takeSnapshot(services, NOW - 86_400_000);
  const after = takeSnapshot(
    services
      .map((s) => (rng.chance(0.7) ? drifted(rng, s) : s))
      .concat(rng.chance(0.3) ? [hostileService(rng, i * 100 + 99)] : []),
    NOW,
  );
  const drift = attributeDrift(diffSnapshots(before, after), audit, { from: NOW - 86_400_000, to: NOW });
  const keys = hostileKeys(rng, rng.chance(0.05) ? 400 : 4);
  const changedKeys = keys.map((key) => (rng.chance(0.6) ? { ...key, state: data(rng), name: data(rng) } : key));
  const keyDrift = diffKeys(keysSection(keys, NOW - 86_400_000), keysSection(changedKeys, NOW)).map((item) => ({
    ...item,
    authors: [{ actor: rng.pick(['user', 'api-key', 'unknown'] as const), name: data(rng), at: NOW - rng.int(1e8) }],
  }));
  const summary = summaryMessages({
    services,
    filters,
    drift: rng.chance(0.2) ? undefined : drift,
    keys: rng.chance(0.2) ? { unread: { status: rng.int(600) } } : { keys: changedKeys, ownKeyId: keys[0]?.id ?? '' },
    keyDrift,
    generatedAt: NOW,
    ...(rng.chance(0.3) ? { title: 'Scheduled ClickHouse Cloud summary' } : {}),
  });
  const failure = summaryFailureMessage(data(rng));
  const message = requestMessage(request);
  // The modal gets a record within the API's own rules (UUID id, known tier and release channel, names of
  // up to 50 characters, IP sources, non-empty endpoint ids); descriptions, tags, keys... stay hostile.
  const editable = ServiceRecordSchema.parse({
    ...service,
    id: `5e000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    tier: rng.pick(['production', 'development']),
    releaseChannel: rng.pick(['slow', 'default', 'fast']),
    name: [...service.name].slice(0, 50).join(''),
    ipAccessList: (service.ipAccessList ?? []).map((entry, n) => ({
      ...entry,
      source: `10.${n >> 8}.${n & 255}.0/24`,
    })),
    privateEndpointIds: (service.privateEndpointIds ?? []).map((id) => id || 'pe-empty'),
    availablePrivateEndpointIds: (service.availablePrivateEndpointIds ?? []).map((id) => id || 'pe-empty'),
  });
  return [
    { what: 'listBlocks', blocks: listBlocks(services, filters, NOW) },
    { what: 'serviceBlocks', blocks: serviceBlocks(service) },
    { what: 'serviceLine', blocks: [section(serviceLine(service))] },
    { what: 'changeRequestBlocks', blocks: message.blocks, texts: [message.text] },
    {
      what: `changeRequestBlocks ${request.status}`,
      blocks: changeRequestBlocks({ ...request, status: rng.pick(CHANGE_STATUSES) }),
    },
    { what: 'outcomeText', blocks: [section(outcomeText(request))] },
    { what: 'pendingBlocks', blocks: pendingBlocks([request, hostileRequest(rng, plan)]) },
    {
      what: 'historyBlocks',
      blocks: historyBlocks(
        audit,
        { beginsAt: rng.chance(0.5) ? NOW - 86_400_000 : undefined, retentionDays: 400 },
        rng.chance(0.5) ? service.name : undefined,
      ),
    },
    { what: 'historyBlocks empty', blocks: historyBlocks([], { beginsAt: NOW, retentionDays: 400 }, service.name) },
    { what: 'cloudErrorText', blocks: [section(cloudErrorText(error, data(rng)))] },
    {
      what: 'failed outcome with the API sentence',
      blocks: changeRequestBlocks({
        ...request,
        status: 'failed',
        decidedBy: APPROVER,
        decidedAt: NOW,
        outcome: {
          message: cloudErrorSentence(error),
          status: error.status ?? 0,
          ...(error.requestId ? { apiRequestId: error.requestId } : {}),
        },
      }),
    },
    {
      what: 'resolutionText not-found',
      blocks: [
        section(resolutionText({ ok: false, reason: 'not-found', query: data(rng), candidates: services.slice(0, 3) })),
      ],
    },
    {
      what: 'resolutionText ambiguous',
      blocks: [section(resolutionText({ ok: false, reason: 'ambiguous', query: data(rng), candidates: services }))],
    },
    { what: 'invalidBlocks', blocks: invalidBlocks('/clickhouse', data(rng), data(rng)) },
    { what: 'helpBlocks', blocks: helpBlocks('/clickhouse') },
    { what: 'scheduleAddedBlocks', blocks: scheduleAddedBlocks(schedule, new Date(NOW)) },
    {
      what: 'scheduleListBlocks',
      blocks: scheduleListBlocks([schedule, { ...schedule, id: data(rng) }], new Date(NOW)),
    },
    { what: 'summary headline', blocks: summary.headline.blocks, texts: [summary.headline.text] },
    ...summary.details.map((detail, n) => ({
      what: `summary details ${n + 1}`,
      blocks: detail.blocks,
      texts: [detail.text],
    })),
    { what: 'summaryFailureMessage', blocks: failure.blocks, texts: [failure.text] },
    { what: 'editView', blocks: [], modal: editView(editable, editMetadata(editable, 'C0CHANNEL')) },
    { what: 'mention', blocks: [section(`${mention(data(rng))} ${mention(REQUESTER)}`)] },
    ...justifiedRenders(rng, request, service),
    ...readRenders(rng, service),
  ];
}

/** The read commands' answers (backups, health, keys, members, roles, settings) over hostile API data. */
/** Keys with hostile names and suffixes; half enabled, so that the summary flags some of them. */
function hostileKeys(rng: Rng, count: number): ApiKey[] {
  return Array.from({ length: 1 + rng.int(count) }, (_, n) =>
    ApiKeySchema.parse({
      id: `${data(rng)}k${n}`,
      name: data(rng),
      state: rng.pick(['enabled', data(rng)]),
      keySuffix: data(rng),
      createdAt: new Date(NOW - rng.int(4e10)).toISOString(),
      usedAt: rng.chance(0.5) ? data(rng) : undefined,
      expireAt: rng.chance(0.5) ? null : data(rng),
      assignedRoles: [{ roleId: data(rng), roleName: rng.pick(['Admin', data(rng)]), roleType: data(rng) }],
    }),
  );
}

function readRenders(rng: Rng, service: ServiceRecord): Rendered[] {
  const backups = Array.from({ length: rng.int(14) }, () =>
    BackupSchema.parse({
      id: `${data(rng)}x`,
      status: rng.pick(['done', 'error', 'in_progress', data(rng)]),
      startedAt: rng.chance(0.8) ? new Date(NOW - rng.int(1e9)).toISOString() : data(rng),
      type: data(rng),
      sizeInBytes: rng.int(1e12),
      durationInSeconds: rng.int(1e5),
    }),
  );
  const roles = [{ roleId: data(rng), roleName: data(rng), roleType: data(rng) }];
  const keys = Array.from({ length: 1 + rng.int(4) }, () =>
    ApiKeySchema.parse({
      id: `${data(rng)}x`,
      name: data(rng),
      state: data(rng),
      keySuffix: data(rng),
      usedAt: rng.chance(0.5) ? data(rng) : undefined,
      expireAt: rng.chance(0.5) ? null : data(rng),
      assignedRoles: roles,
    }),
  );
  const members = [
    MemberSchema.parse({ userId: `${data(rng)}u`, name: data(rng), email: data(rng), assignedRoles: roles }),
  ];
  const role = RoleSchema.parse({ id: `${data(rng)}r`, name: data(rng), type: data(rng), actors: [data(rng)] });
  const load = {
    queries: rng.int(100),
    replicas: [{ hostname: data(rng), memoryBytes: rng.int(1e11) }],
    partial: true,
    state: data(rng),
    version: data(rng),
  };
  const endpoint = QueryEndpointSchema.parse({
    roles: [data(rng), 'sql_console_admin'],
    openApiKeys: [data(rng)],
    allowedOrigins: data(rng),
  });
  const schedule = ScalingScheduleSchema.parse({
    entries: [
      { name: data(rng), weekdays: [1, 2, 3], startHourUtc: 8, endHourUtc: 18, numReplicas: 6, isActiveNow: true },
    ],
    baseConfig: {},
  });
  return [
    {
      what: 'backupsBlocks',
      blocks: backupsBlocks(service, backups, { backupStartTime: data(rng), backupPeriodInHours: 6 }),
    },
    { what: 'healthBlocks', blocks: healthBlocks(service, load) },
    { what: 'keysBlocks', blocks: keysBlocks(keys, NOW, keys[0]?.id ?? '') },
    { what: 'membersBlocks', blocks: membersBlocks(members, data(rng), [role]) },
    { what: 'membersBlocks none', blocks: membersBlocks([], data(rng), [role]) },
    { what: 'rolesBlocks', blocks: rolesBlocks([role]) },
    { what: 'queryEndpointBlocks', blocks: queryEndpointBlocks(service, endpoint, keys) },
    {
      what: 'upgradeWindowBlocks',
      blocks: upgradeWindowBlocks(service, { weekday: 3, startHourUtc: 6, duration: 6 }, NOW),
    },
    { what: 'scalingScheduleBlocks', blocks: scalingScheduleBlocks(service, { kind: 'schedule', schedule }) },
  ];
}

/** A hostile reason, ticket and rejection reason in every place they are shown (issue 25). */
function justifiedRenders(rng: Rng, request: ChangeRequest, service: ServiceRecord): Rendered[] {
  const justified: ChangeRequest = { ...request, reason: data(rng), ticket: data(rng) };
  const rejected: ChangeRequest = {
    ...justified,
    status: 'rejected',
    decidedBy: APPROVER,
    decidedAt: NOW,
    outcome: { rejectedBecause: data(rng) },
  };
  const entry: AuditEntry = { ...hostileAudit(rng, service), reason: data(rng), ticket: data(rng) };
  const reason = rejected.outcome?.rejectedBecause ?? '';
  const news: RequesterNews[] = [
    { kind: 'approved', by: APPROVER },
    { kind: 'applied' },
    { kind: 'failed' },
    { kind: 'rejected', by: rng.chance(0.8) ? APPROVER : data(rng), reason },
    { kind: 'expired' },
    { kind: 'reverted' },
  ];
  // The DM links the request's channel, a control sequence the bot means (never data).
  const withoutChannelLink = (blocks: unknown[]): unknown[] =>
    JSON.parse(JSON.stringify(blocks).replaceAll('<#C0CHANNEL>', '')) as unknown[];
  return [
    { what: 'changeRequestBlocks justified', blocks: changeRequestBlocks(justified) },
    { what: 'changeRequestBlocks rejected with a reason', blocks: changeRequestBlocks(rejected) },
    { what: 'pendingBlocks justified', blocks: pendingBlocks([justified]) },
    { what: 'historyBlocks justified', blocks: historyBlocks([entry], { beginsAt: NOW, retentionDays: 400 }) },
    ...news.map((n) => {
      const message = requesterNewsMessage({ ...rejected, revertOf: data(rng) }, n);
      return {
        what: `requesterNewsMessage ${n.kind}`,
        blocks: withoutChannelLink(message.blocks),
        texts: [message.text],
      };
    }),
    { what: 'rejectView', blocks: [], modal: rejectView({ requestId: data(rng).slice(0, 64) || 'CR-1' }) },
  ];
}

describe('every renderer under hostile data', () => {
  it.each([
    { seed: 0xbad_0001, rounds: 250 },
    { seed: 0xbad_0002, rounds: 250 },
    { seed: 0xbad_0003, rounds: 250 },
  ])(
    'never throws, never lets data ping or link, and stays within Block Kit limits (seed $seed)',
    ({ seed, rounds }) => {
      const rng = prng(seed);
      const problems: string[] = [];
      let texts = 0;
      for (let i = 0; i < rounds && problems.length < 20; i++) {
        let rendered: Rendered[];
        try {
          rendered = renderAll(rng, i);
        } catch (error) {
          problems.push(`round ${i}: threw ${error instanceof Error ? error.stack : String(error)}`);
          continue;
        }
        for (const { what, blocks, texts: notifications = [], modal } of rendered) {
          const modalBlocks = modal === undefined ? [] : ((modal as { blocks?: unknown[] }).blocks ?? []);
          for (const text of [...mrkdwnOf(blocks), ...mrkdwnOf(modalBlocks), ...notifications]) {
            texts += 1;
            for (const leak of leaks(text, ALLOWED))
              problems.push(`round ${i} ${what}: ${leak} in ${shown(text, 400)}`);
          }
          const limits = modal === undefined ? blockKitViolations(blocks, { max: 50 }) : modalViolations(modal);
          for (const violation of limits) problems.push(`round ${i} ${what}: Block Kit ${violation.slice(0, 200)}`);
        }
      }
      expect(problems).toStrictEqual([]);
      expect(texts).toBeGreaterThan(rounds * 20);
    },
    // CPU-bound: 10-12 s alone on the 2-core machine, past the default 20 s beside the suite's other workers.
    60_000,
  );
});
