/**
 * The Lua scripts of the Redis stores (the code is in ./lua/, read by lua-script.ts). Each one is
 * a single atomic step: nothing else runs on the server between its check and its writes. They
 * never decode or re-encode the request JSON (cjson would turn empty arrays into objects); they
 * only read the scalar fields stored beside it. Every key a script touches is passed in KEYS, as
 * Redis Cluster requires.
 *
 * The names below are the callers' (camelCase, in any order); each .lua file's header decides the
 * order Redis receives them in, and loading a script fails when the two sets of names differ.
 * Registered names are prefixed so they cannot clash with Redis commands.
 */
import { luaScript } from './lua-script.js';

export const CREATE_CHANGE = luaScript({
  command: 'chbotCreateChange',
  file: 'create-change',
  keys: ['request', 'pending', 'audit', 'open', 'serviceAudit', 'services'],
  args: [
    'id',
    'expiresAt',
    'retentionDeadline',
    'retentionMs',
    'pruneBefore',
    'auditMinid',
    'streamTtlMs',
    'renew',
    'hashCount',
    'serviceId',
  ],
  rest: 'fields',
});

export const TRANSITION_CHANGE = luaScript({
  command: 'chbotTransitionChange',
  file: 'transition-change',
  keys: [
    'request',
    'applying',
    'audit',
    'serviceLock',
    'open',
    'serviceAudit',
    'reverts',
    'reminders',
    'scheduled',
    'services',
  ],
  args: [
    'id',
    'now',
    'to',
    'actor',
    'outcome',
    'auditMinid',
    'action',
    'summary',
    'apiRequestId',
    'message',
    'expiryMessage',
    'claimOwner',
    'claimTtl',
    'holderOwner',
    'holderFence',
    'auditRetentionMs',
    'streamTtlMs',
    'renew',
  ],
  rest: 'fromStatuses',
});

export const ADD_APPROVAL = luaScript({
  command: 'chbotAddApproval',
  file: 'add-approval',
  keys: ['request', 'applying', 'audit', 'open', 'serviceAudit', 'scheduled', 'serviceLock', 'services'],
  args: [
    'id',
    'now',
    'user',
    'counts',
    'auditMinid',
    'summary',
    'message',
    'completesMessage',
    'expiryMessage',
    'claimOwner',
    'claimTtl',
    'applyAt',
    'retentionMs',
    'streamTtlMs',
    'renew',
  ],
});

export const SET_POSTED = luaScript({
  command: 'chbotSetChangePosted',
  file: 'set-posted',
  keys: ['request', 'nudges'],
  args: ['id', 'messageTs', 'approvalTs'],
});

export const SET_MESSAGE_TS = luaScript({
  command: 'chbotSetChangeMessageTs',
  file: 'set-message-ts',
  keys: ['request'],
  args: ['ts', 'field'],
});

/** The lease scripts name the request and its service's lock. */
const LEASE_KEYS = ['request', 'serviceLock'] as const;

export const RENEW_LEASE = luaScript({
  command: 'chbotRenewLease',
  file: 'renew-lease',
  keys: LEASE_KEYS,
  args: ['id', 'owner', 'fence', 'ttlMs'],
});

export const LOCK_SERVICE = luaScript({
  command: 'chbotLockService',
  file: 'lock-service',
  keys: LEASE_KEYS,
  args: ['id', 'owner', 'fence', 'ttlMs'],
});

export const CONFIRM_SENDING = luaScript({
  command: 'chbotConfirmSending',
  file: 'confirm-sending',
  keys: LEASE_KEYS,
  args: ['id', 'owner', 'fence', 'minLeftMs', 'sentLockMs'],
});

export const RECORD_CONFIRMED = luaScript({
  command: 'chbotRecordConfirmed',
  file: 'record-confirmed',
  keys: ['request'],
  args: ['owner', 'fence', 'confirmed'],
});

export const TAKE_OVER = luaScript({
  command: 'chbotTakeOver',
  file: 'take-over',
  keys: LEASE_KEYS,
  args: ['owner', 'ttlMs', 'legacyMs', 'id'],
});

export const POSTPONE_REVERT = luaScript({
  command: 'chbotPostponeRevert',
  file: 'postpone-revert',
  keys: ['reverts', 'retrying'],
  args: ['id', 'retryAt', 'now'],
});

export const DROP_STALE_RETRY_NOTES = luaScript({
  command: 'chbotDropStaleRetryNotes',
  file: 'drop-stale-retry-notes',
  keys: ['reverts', 'retrying'],
  args: [],
  rest: 'ids',
});

export const CLAIM_RUN = luaScript({
  command: 'chbotClaimRun',
  file: 'claim-run',
  keys: ['lastRun'],
  args: ['scheduleId', 'fireTime'],
});

export const ADD_SCHEDULE = luaScript({
  command: 'chbotAddSchedule',
  file: 'add-schedule',
  keys: ['schedules'],
  args: ['id', 'scheduleJson', 'mostPerChannel', 'channelNeedle'],
});

export const START_RUN = luaScript({
  command: 'chbotStartRun',
  file: 'start-run',
  keys: ['running'],
  args: ['scheduleId', 'now', 'postingUntil'],
});

export const OPEN_AUDIT_SINK = luaScript({
  command: 'chbotOpenAuditSink',
  file: 'open-audit-sink',
  keys: ['stream'],
  args: ['group', 'start'],
});

export const HOLD_AUDIT_SINK = luaScript({
  command: 'chbotHoldAuditSink',
  file: 'hold-audit-sink',
  keys: ['lease'],
  args: ['holder', 'ttlMs'],
});

export const RELEASE_AUDIT_SINK = luaScript({
  command: 'chbotReleaseAuditSink',
  file: 'release-audit-sink',
  keys: ['lease'],
  args: ['holder'],
});

export const REVEAL_SECRET = luaScript({
  command: 'chbotRevealSecret',
  file: 'reveal-secret',
  keys: ['meta', 'sealed'],
  args: ['userId', 'now', 'rememberedMs'],
});
