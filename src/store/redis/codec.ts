/**
 * How requests and audit entries are laid out in Redis, and how they are read back.
 *
 * A request hash has:
 *   data         JSON of what never changes: id, channelId, requesterId, plan, createdAt, expiresAt
 *   status, messageTs, decidedBy, decidedAt, outcome (JSON)  — what transitions change
 *   reminderTs                                               — the reminder's message, once posted
 *   approvalTs                                               — the approval channel's message
 *   channelId, serviceId, serviceName, expiresAt             — copies of immutable scalars, so the
 *                                                              Lua scripts never parse `data`
 *   applyAt      a scheduled request's time (ms), also in `data`: the scheduled index's score
 *   update       JSON of the plan's PATCH body, copied into the 'applied' audit entry
 *   revertTarget, revertAfterMs, remindAfterMs               — a temporary request's schedule
 *   revertOf     a revert's grant: applying the revert ends the grant's schedule
 *   organization the request's organization (ORGANIZATIONS_FILE), copied into every audit entry
 *   confirmed    JSON of the operations confirmed so far (a request of several)
 *   fence, leaseOwner, leaseUntil, sending, sentAt, takenAt  — the apply lease (lua/lease-prelude.lua)
 */
import type { AuditEntry, NewAuditEntry } from '../../core/change/audit.js';
import { z } from 'zod';
import {
  CHANGE_STATUSES,
  ENDPOINTS,
  type ChangeOutcome,
  type ChangeRequest,
  type ChangeStatus,
  type OperationResult,
} from '../../core/change/types.js';
import { ServiceUpdateSchema, type ServiceUpdate } from '../../core/service/schema.js';
import type { Approval, Requirement } from '../../core/policy/types.js';
import { auditFields, isAuditAction, neededApprovals, withoutEmptyOptionals } from '../rules.js';

type ImmutablePart = Pick<
  ChangeRequest,
  | 'id'
  | 'channelId'
  | 'requesterId'
  | 'organization'
  | 'plan'
  | 'createdAt'
  | 'expiresAt'
  | 'requirements'
  | 'policyDigest'
  | 'applyAt'
  | TemporaryPart
  | JustificationPart
>;
/** What makes a request time-boxed, a revert or an extension (core/change/temporary.ts). */
type TemporaryPart =
  'temporary' | 'revertOf' | 'extendOf' | 'threadTs' | 'beneficiaryId' | 'undoOf' | 'breakGlass' | 'reviewOf';
/** Why the request was made; absent on requests stored before reasons and tickets existed. */
type JustificationPart = 'reason' | 'ticket';

/** Hash field of one approval: `approved:<user>` = "<seq>|<at>|<requirement indices>" (lua/add-approval.lua). */
const APPROVED_PREFIX = 'approved:';

export class StoredDataError extends Error {
  constructor(what: string) {
    super(`unreadable data in the change store: ${what}`);
    this.name = 'StoredDataError';
  }
}

export function requestToHashArgs(request: ChangeRequest): string[] {
  const immutable: ImmutablePart = {
    id: request.id,
    channelId: request.channelId,
    requesterId: request.requesterId,
    ...(request.organization ? { organization: request.organization } : {}),
    plan: request.plan,
    createdAt: request.createdAt,
    expiresAt: request.expiresAt,
    ...(request.requirements ? { requirements: request.requirements } : {}),
    ...(request.policyDigest ? { policyDigest: request.policyDigest } : {}),
    ...temporaryPart(request),
    ...(request.reason ? { reason: request.reason } : {}),
    ...(request.ticket ? { ticket: request.ticket } : {}),
    ...(request.applyAt !== undefined ? { applyAt: request.applyAt } : {}),
  };
  const args = [
    'data',
    JSON.stringify(immutable),
    'status',
    request.status,
    'channelId',
    request.channelId,
    'serviceId',
    request.plan.serviceId,
    'serviceName',
    request.plan.serviceName,
    'expiresAt',
    String(request.expiresAt),
    'update',
    JSON.stringify(request.plan.update),
    ...(request.organization ? ['organization', request.organization] : []),
    'need',
    neededApprovals(request).join(','),
  ];
  args.push(...revertScheduleArgs(request));
  // Read by the scripts when the request moves to "scheduled" (its score in the scheduled index).
  if (request.applyAt !== undefined) args.push('applyAt', String(request.applyAt));
  const approvals = request.approvals ?? [];
  approvals.forEach((approval, index) =>
    args.push(`${APPROVED_PREFIX}${approval.userId}`, `${index + 1}|${approval.at}|${approval.counts.join(',')}`),
  );
  if (approvals.length > 0) args.push('approvalSeq', String(approvals.length));
  if (request.messageTs !== undefined) args.push('messageTs', request.messageTs);
  if (request.reminderTs !== undefined) args.push('reminderTs', request.reminderTs);
  if (request.approvalTs !== undefined) args.push('approvalTs', request.approvalTs);
  if (request.decidedBy !== undefined) args.push('decidedBy', request.decidedBy);
  if (request.decidedAt !== undefined) args.push('decidedAt', String(request.decidedAt));
  if (request.outcome !== undefined) args.push('outcome', JSON.stringify(request.outcome));
  return args;
}

function temporaryPart(request: ChangeRequest): Pick<ChangeRequest, TemporaryPart> {
  const { temporary, revertOf, extendOf, threadTs, beneficiaryId, undoOf, breakGlass, reviewOf } = request;
  return {
    ...(breakGlass ? { breakGlass } : {}),
    ...(reviewOf ? { reviewOf } : {}),
    ...(beneficiaryId ? { beneficiaryId } : {}),
    ...(undoOf ? { undoOf } : {}),
    ...(temporary ? { temporary } : {}),
    ...(revertOf ? { revertOf } : {}),
    ...(extendOf ? { extendOf } : {}),
    ...(threadTs ? { threadTs } : {}),
  };
}

/**
 * Scalars the transition script reads when a time-boxed request (or an extension of one) is
 * applied: which request's revert to schedule, and how long after now it and its reminder are due.
 */
function revertScheduleArgs(request: ChangeRequest): string[] {
  // A revert, once applied, ends its grant's schedule in the same step (the transition script).
  if (request.revertOf) return ['revertOf', request.revertOf];
  if (!request.temporary) return [];
  return [
    'revertTarget',
    request.extendOf ?? request.id,
    'revertAfterMs',
    String(request.temporary.durationMs),
    'remindAfterMs',
    String(request.temporary.remindAfterMs),
  ];
}

/** Rebuilds a request from HGETALL; undefined when the hash does not exist. */
export function requestFromHash(hash: Record<string, string>): ChangeRequest | undefined {
  if (hash.data === undefined) return undefined;
  const request: ChangeRequest = { ...parseImmutablePart(hash.data), status: parseStatus(hash.status) };
  if (hash.messageTs !== undefined) request.messageTs = hash.messageTs;
  if (hash.reminderTs !== undefined) request.reminderTs = hash.reminderTs;
  if (hash.approvalTs !== undefined) request.approvalTs = hash.approvalTs;
  if (hash.decidedBy !== undefined) request.decidedBy = hash.decidedBy;
  if (hash.decidedAt !== undefined) request.decidedAt = parseNumber(hash.decidedAt, 'decidedAt');
  if (hash.outcome !== undefined) request.outcome = parseOutcome(hash.outcome);
  if (hash.confirmed !== undefined) request.confirmed = parseOperationResults(hash.confirmed, 'confirmed');
  // Set again by the approval that schedules it (a window's opening): the hash field wins over `data`.
  if (hash.applyAt !== undefined) request.applyAt = parseNumber(hash.applyAt, 'applyAt');
  const approvals = approvalsFromHash(hash);
  if (approvals.length > 0) request.approvals = approvals;
  // A lease belongs to an applying request: a settled one keeps its last lease's fields (removing
  // them would cost the server a command per request), which say nothing any more.
  if (request.status === 'applying' && hash.leaseOwner !== undefined && hash.fence !== undefined) {
    request.lease = {
      owner: hash.leaseOwner,
      fence: parseNumber(hash.fence, 'fence'),
      until: parseNumber(hash.leaseUntil ?? '0', 'leaseUntil'),
      sending: hash.sending === '1',
      ...(hash.sentAt === undefined ? {} : { sentAt: parseNumber(hash.sentAt, 'sentAt') }),
      ...(hash.takenAt === undefined ? {} : { takenAt: parseNumber(hash.takenAt, 'takenAt') }),
    };
  }
  return request;
}

/** In the order the store recorded them, whatever the clocks of the replicas that clicked said. */
function approvalsFromHash(hash: Record<string, string>): Approval[] {
  const approvals: Array<Approval & { seq: number }> = [];
  for (const [field, value] of Object.entries(hash)) {
    if (!field.startsWith(APPROVED_PREFIX)) continue;
    const match = /^(\d+)\|(\d+)\|([\d,]*)$/.exec(value);
    if (!match) throw new StoredDataError(`approval ${field}`);
    const counts = (match[3] ?? '').split(',').filter(Boolean).map(Number);
    approvals.push({
      seq: Number(match[1]),
      userId: field.slice(APPROVED_PREFIX.length),
      at: Number(match[2]),
      counts,
    });
  }
  return approvals.sort((a, b) => a.seq - b.seq).map(({ seq: _seq, ...approval }) => approval);
}

/** HGETALL as a Lua script returns it: a flat field, value, field, value list. */
export function hashFromFlatReply(reply: unknown): Record<string, string> {
  if (!Array.isArray(reply)) throw new StoredDataError('hash reply is not a list');
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) {
    const field: unknown = reply[i];
    const value: unknown = reply[i + 1];
    if (typeof field !== 'string' || typeof value !== 'string')
      throw new StoredDataError('hash reply holds non-strings');
    hash[field] = value;
  }
  return hash;
}

export function auditToStreamArgs(entry: NewAuditEntry): string[] {
  return Object.entries(auditFields(entry)).flat();
}

/** An XRANGE/XREVRANGE entry as an AuditEntry; undefined for entries this store did not write. */
export function auditFromStreamEntry(id: string, flatFields: string[]): AuditEntry | undefined {
  const fields = hashFromFlatReply(flatFields);
  const { at, action, changeId, actorId, channelId, serviceId, serviceName, summary } = fields;
  if (
    at === undefined ||
    action === undefined ||
    !isAuditAction(action) ||
    changeId === undefined ||
    actorId === undefined ||
    channelId === undefined ||
    serviceId === undefined ||
    serviceName === undefined ||
    summary === undefined
  ) {
    return undefined;
  }
  const atMs = Number(at);
  if (!Number.isFinite(atMs)) return undefined;
  return withoutEmptyOptionals({
    id,
    at: atMs,
    action,
    changeId,
    actorId,
    channelId,
    serviceId,
    serviceName,
    summary,
    apiRequestId: fields.apiRequestId,
    message: fields.message,
    ...(fields.update === undefined ? {} : storedUpdate(fields.update)),
    ...(fields.fence !== undefined && Number.isSafeInteger(Number(fields.fence))
      ? { fence: Number(fields.fence) }
      : {}),
    ...(fields.organization ? { organization: fields.organization } : {}),
    ...(fields.reason ? { reason: fields.reason } : {}),
    ...(fields.ticket ? { ticket: fields.ticket } : {}),
  });
}

/** The PATCH body of an applied entry; one that cannot be read is left out (it then credits nothing). */
function storedUpdate(json: string): { update?: ServiceUpdate } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return {};
  }
  const parsed = ServiceUpdateSchema.safeParse(value);
  return parsed.success ? { update: parsed.data } : {};
}

function parseImmutablePart(json: string): ImmutablePart {
  const value = parseJsonObject(json, 'data');
  const {
    id,
    channelId,
    requesterId,
    organization,
    plan,
    createdAt,
    expiresAt,
    requirements,
    policyDigest,
    reason,
    ticket,
    applyAt,
  } = value;
  if (
    typeof id !== 'string' ||
    typeof channelId !== 'string' ||
    typeof requesterId !== 'string' ||
    typeof plan !== 'object' ||
    plan === null ||
    typeof createdAt !== 'number' ||
    typeof expiresAt !== 'number'
  ) {
    throw new StoredDataError('request data lacks its fields');
  }
  // The plan was written by create() from a typed ChangePlan; only its presence is checked here.
  return {
    id,
    channelId,
    requesterId,
    ...(typeof organization === 'string' ? { organization } : {}),
    plan: plan as ChangeRequest['plan'],
    createdAt,
    expiresAt,
    // Written by create() from typed requirements, like the plan.
    ...(Array.isArray(requirements) ? { requirements: requirements as Requirement[] } : {}),
    ...(typeof policyDigest === 'string' ? { policyDigest } : {}),
    ...readTemporaryPart(value),
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof ticket === 'string' ? { ticket } : {}),
    ...(typeof applyAt === 'number' ? { applyAt } : {}),
  };
}

function readTemporaryPart(value: Record<string, unknown>): Pick<ChangeRequest, TemporaryPart> {
  const { temporary, revertOf, extendOf, threadTs, beneficiaryId, undoOf, breakGlass, reviewOf } = value;
  const part: Pick<ChangeRequest, TemporaryPart> = {};
  if (typeof temporary === 'object' && temporary !== null) {
    const { durationMs, remindAfterMs } = temporary as Record<string, unknown>;
    if (typeof durationMs !== 'number' || typeof remindAfterMs !== 'number')
      throw new StoredDataError('temporary terms');
    part.temporary = { durationMs, remindAfterMs };
  }
  if (typeof revertOf === 'string') part.revertOf = revertOf;
  if (typeof extendOf === 'string') part.extendOf = extendOf;
  if (typeof threadTs === 'string') part.threadTs = threadTs;
  if (typeof beneficiaryId === 'string') part.beneficiaryId = beneficiaryId;
  if (typeof undoOf === 'string') part.undoOf = undoOf;
  if (breakGlass === true) part.breakGlass = true;
  if (typeof reviewOf === 'string') part.reviewOf = reviewOf;
  return part;
}

function parseStatus(value: string | undefined): ChangeStatus {
  const status = CHANGE_STATUSES.find((candidate) => candidate === value);
  if (status === undefined) throw new StoredDataError(`status ${String(value)}`);
  return status;
}

function parseNumber(value: string, field: string): number {
  const number = Number(value);
  if (!Number.isFinite(number)) throw new StoredDataError(field);
  return number;
}

/** The outcome a transition recorded; a field of another type means something else wrote the hash. */
function parseOutcome(json: string): ChangeOutcome {
  const { apiRequestId, message, status, rejectedBecause, operations, stale } = parseJsonObject(json, 'outcome');
  if (
    (stale !== undefined && stale !== true) ||
    (apiRequestId !== undefined && typeof apiRequestId !== 'string') ||
    (message !== undefined && typeof message !== 'string') ||
    (status !== undefined && typeof status !== 'number') ||
    (rejectedBecause !== undefined && typeof rejectedBecause !== 'string')
  ) {
    throw new StoredDataError('outcome');
  }
  return {
    ...(apiRequestId === undefined ? {} : { apiRequestId }),
    ...(message === undefined ? {} : { message }),
    ...(status === undefined ? {} : { status }),
    ...(rejectedBecause === undefined ? {} : { rejectedBecause }),
    ...(stale === true ? { stale } : {}),
    ...(operations === undefined ? {} : { operations: operationResultsOf(operations, 'outcome') }),
  };
}

const OperationResultsSchema = z.array(
  z.object({
    index: z.number().int().nonnegative(),
    endpoint: z.enum(ENDPOINTS),
    status: z.enum(['applied', 'failed', 'unknown']),
    apiRequestId: z.string().optional(),
  }),
);

function parseOperationResults(json: string, field: string): OperationResult[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new StoredDataError(field);
  }
  return operationResultsOf(value, field);
}

function operationResultsOf(value: unknown, field: string): OperationResult[] {
  const parsed = OperationResultsSchema.safeParse(value);
  if (!parsed.success) throw new StoredDataError(field);
  return parsed.data.map(({ apiRequestId, ...result }) => (apiRequestId ? { ...result, apiRequestId } : result));
}

function parseJsonObject(json: string, field: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new StoredDataError(`${field} is not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StoredDataError(`${field} is not an object`);
  return value as Record<string, unknown>;
}
