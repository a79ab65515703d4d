import type { PowerAction } from '../capacity/plan.js';
import type { CapacityValues } from '../capacity/values.js';
import type { Range } from '../service/capacity.js';
import type {
  AccessEntry,
  OutgoingTag,
  ReleaseChannel,
  ReplicaScalingUpdate,
  ServiceUpdate,
  StateCommand,
} from '../service/schema.js';
import type { Approval, Requirement } from '../policy/types.js';
import type { PartName, PartUpdates } from '../service/parts.js';
import type { BackupSettings } from '../service/backup.js';
import type { PlanTarget } from '../access/target.js';
import type { LiveLoadNote } from '../service/load.js';
import type { ScheduleEntryRequest } from '../service/scaling-schedule.js';

/** What a person asked for, in their terms (from a command or the edit modal). */
export interface ChangeIntent {
  name?: string;
  releaseChannel?: ReleaseChannel;
  mysqlEndpoint?: boolean;
  ipAdd?: Array<{ source: string; description?: string }>;
  /** Sources to remove; removal matches on source, as the API does. */
  ipRemove?: string[];
  privateEndpointAttach?: string[];
  privateEndpointDetach?: string[];
  tdeKeyId?: string;
  /** Tags to set: a new key is added, a known key with another value gets the new value. */
  tagAdd?: OutgoingTag[];
  /** Tags to take off, by key; with a value, only if the tag still has that value. */
  tagRemove?: OutgoingTag[];
  /** `scale SERVICE replicas N` (min = max) or `replicas MIN-MAX` (horizontal autoscaling). */
  replicas?: Range;
  /** `scale SERVICE memory GB` or `memory MIN-MAX`: memory per replica, in GB. */
  replicaMemoryGb?: Range;
  /** `idle SERVICE on [after 15m]` / `idle SERVICE off`; a timeout absent is kept as it is. */
  idleScaling?: { enabled: boolean; timeoutMinutes?: number };
  /** `stop`, `start` or `wake` (an idle service). */
  power?: PowerAction;
  /** `core-dumps SERVICE on|off`. */
  coreDumps?: boolean;
  /** `backup-config SERVICE [every Nh] [keep Nd] [at HH:MM] [default]`. */
  backupConfig?: BackupConfigIntent;
  /** `grant ROLE to EMAIL` / `revoke ROLE from EMAIL`: the role by name or id. */
  memberRole?: MemberRoleIntent;
  /** `key disable|enable KEY`, `key expire KEY in 30d|never`. */
  apiKey?: ApiKeyIntent;
  /** `delete SERVICE`; `askedAt`: the day the backups are judged against (kinds' `localize`). */
  delete?: { askedAt?: number };
  /** `upgrade-window SERVICE DAY HH:MM [tz:Area/City]` or `upgrade-window SERVICE off`. */
  upgradeWindow?: UpgradeWindowIntent;
  /** `scaling-schedule SERVICE add|remove|clear …`; Undo gives the whole list back. */
  scalingSchedule?: ScalingScheduleIntent;
  /** `query-endpoint SERVICE on …` / `off`. */
  queryEndpoint?: QueryEndpointIntent;
  /** `reset-password SERVICE`: a generated password (no hashes), or the hashes the requester gave. */
  passwordReset?: PasswordResetIntent;
}

/** A weekly upgrade window as asked, and once read in UTC (`localize`), or none. */
export interface UpgradeWindowIntent {
  /** No window: upgrades may happen at any time. */
  off?: true;
  /** As written: a weekday (0 = Sunday) and HH:MM in `zone` (the channel's when absent). */
  local?: { weekday: number; time: string; zone?: string };
  /** Once read on the day the request is made: the UTC start the API takes. */
  utc?: UpgradeWindowSetting;
  /** The local start in the other season, where the zone moves its clocks. */
  note?: string;
  /** Why it cannot be one: the nearest starts that are, in local time. */
  problem?: string;
}

/** A window as the stale check and Undo compare it (the API's weekday and UTC start hour). */
export type UpgradeWindowSetting = { weekday: number; startHourUtc: number };

export interface ScalingScheduleIntent {
  add?: ScheduleEntryAsked;
  /** The entry's name (compared without regard to case). */
  remove?: string;
  clear?: true;
  /** The whole list (Undo: the schedule back as it was). */
  entries?: ScheduleEntryRequest[];
}

/** `add "NAME" DAYS HH:MM-HH:MM SETTINGS [tz:Area/City]` as written; `utc` once read in UTC (`localize`). */
export interface ScheduleEntryAsked {
  name: string;
  /** Local weekdays, 0 = Sunday. */
  days: number[];
  from: string;
  to: string;
  zone?: string;
  replicas?: Range;
  memoryGb?: Range;
  idle?: { enabled: boolean; timeoutMinutes?: number };
  utc?: { weekdays: number[]; startHourUtc: number; endHourUtc: number };
  note?: string;
  problem?: string;
}

/** An API key as a command names it (`asked`), and once resolved against `GET …/keys` at filing. */
export interface QueryKeyRef {
  asked: string;
  id?: string;
  /** "finance-dash …q7Zk": how sentences name it. */
  label?: string;
}

export type QueryEndpointIntent =
  | { on: false }
  | {
      on: true;
      roles: Array<'sql_console_read_only' | 'sql_console_admin'>;
      keys: QueryKeyRef[];
      /** allowedOrigins as the API takes it: comma-separated domains, empty for any origin. */
      origins: string;
      /** Every key of the organization when the keys were resolved, to name those the endpoint allows now. */
      known?: Array<{ id: string; label: string }>;
    };

export interface PasswordResetIntent {
  /** `with-hash`: the hashes come from a form the command opens, not from the command line. */
  withHash?: true;
  /**
   * The form's hashes (base64 SHA-256, optionally the MySQL double SHA-1), sealed in the secret
   * vault until the request is applied: this is their id there, never the hashes themselves.
   */
  sealedHashes?: string;
}

/** The Query API endpoint as a change reads it: 'off' when the service has none. */
export interface QueryEndpointState {
  roles: string[];
  openApiKeys: string[];
  allowedOrigins: string;
}

export interface MemberRoleIntent {
  action: 'grant' | 'revoke';
  role: string;
}

/** `expireAt`: `in N days` dated on the day the request is made (kinds' `localize`). */
export type ApiKeyIntent =
  { action: 'disable' | 'enable' } | { action: 'expire'; inDays: number | null; expireAt?: string | null };

export interface BackupConfigIntent {
  periodHours?: number;
  retentionDays?: number;
  /**
   * `at HH:MM` as written, in `zone` (the channel's when absent); `utc` once read on the day the
   * request is made (kinds' `localize`), with a note for a zone that moves its clocks, or why it
   * could not be read. null: no start time (an Undo back to none).
   */
  start?: { local: string; zone?: string; utc?: string; note?: string; problem?: string } | null;
  /** Everything back to ClickHouse Cloud's defaults. */
  defaults?: true;
}

/** The fields of a service a change can touch, as they were when the request was made. */
export interface TouchedState {
  name?: string;
  releaseChannel?: string | null;
  mysqlEndpoint?: boolean;
  ipAccessList?: AccessEntry[];
  privateEndpointIds?: string[];
  tdeKeyId?: string | null;
  tags?: OutgoingTag[];
  /** `numReplicas` (vertical) or `minReplicas`/`maxReplicas` (horizontal), as the record shows them. */
  replicas?: CapacityValues;
  /** `minReplicaMemoryGb`/`maxReplicaMemoryGb`. */
  replicaMemory?: CapacityValues;
  /** `idleScaling` and `idleTimeoutMinutes`. */
  idleScaling?: CapacityValues;
  /** The service's state (running, idle, stopped…). */
  power?: string | null;
  enableCoreDumps?: boolean | null;
  /** The service's backup configuration (a part the API keeps apart), with the defaults where absent. */
  backupConfiguration?: BackupSettings;
  /** The service's Query API endpoint (a part), or 'off'. */
  serviceQueryEndpoint?: QueryEndpointState | 'off';
  /** The password is never read: the stale check has nothing to compare. */
  password?: 'never-read';
  /** A member's role ids, sorted. */
  memberRoles?: string[];
  /** An API key's state and expiry (ISO; null: never). */
  apiKey?: { state: string; expireAt: string | null };
  /** A service to delete: its state when asked (it must still be stopped when approved). */
  deletion?: string | null;
  /** Its upgrade window; `none` when it has none (upgrades at any time). */
  upgradeWindow?: UpgradeWindowSetting | 'none';
  /** Its scaling schedule's entries, as the requests that would set them again; empty when none. */
  scalingSchedule?: ScheduleEntryRequest[];
}
export type TouchedField = keyof TouchedState;

export interface FieldChange {
  field: TouchedField;
  label: string;
  before: string;
  after: string;
}

/** PATCH …/services/{id}: the basic details (name, IP access, endpoints, tags…). */
export interface UpdateOperation {
  endpoint: 'update';
  body: ServiceUpdate;
}

/** PATCH …/replicaScaling: replicas, memory per replica, idle scaling. `expect` is what the service shows once done. */
export interface ReplicaScalingOperation {
  endpoint: 'replicaScaling';
  body: ReplicaScalingUpdate;
  expect: CapacityValues;
}

/** PATCH …/state: start, stop or awake; `expect` holds the state it settles in (one on its way counts). */
export interface StateOperation {
  endpoint: 'state';
  body: { command: StateCommand };
  expect: CapacityValues;
}

/**
 * A write to a part of the service the API keeps apart (…/backupConfiguration), with the method
 * its spec names (core/service/parts.ts); `body: null` removes it (DELETE), where it may be.
 */
export type PartOperation = {
  [P in PartName]: { endpoint: 'part'; part: P; body: PartUpdates[P] | null };
}[PartName];

/** PATCH …/members/{userId}: the member's whole role list (the API replaces it). */
export interface MemberOperation {
  endpoint: 'member';
  userId: string;
  body: { assignedRoleIds: string[] };
  /** The one role this change grants or revokes (risks, Undo and a grant's revert read it; never sent). */
  change: { action: 'grant' | 'revoke'; roleId: string; roleName: string };
}

/** PATCH …/keys/{keyId}: its state or expiry (null: never expires). */
export interface ApiKeyOperation {
  endpoint: 'apiKey';
  keyId: string;
  body: { state?: 'enabled' | 'disabled'; expireAt?: string | null };
}

/** DELETE …/services/{id}: a stopped service, gone for good once it is through `terminating`. */
export interface DeleteOperation {
  endpoint: 'delete';
}

export type Operation =
  | DeleteOperation
  | UpdateOperation
  | ReplicaScalingOperation
  | StateOperation
  | PartOperation
  | MemberOperation
  | ApiKeyOperation;
export type Endpoint = Operation['endpoint'];
/** Every endpoint an operation may go to (stored results are checked against these). */
export const ENDPOINTS = [
  'update',
  'replicaScaling',
  'state',
  'part',
  'member',
  'apiKey',
  'delete',
] as const satisfies readonly Endpoint[];

/** What one operation came to, in order; an operation after a failed one is never sent. */
export type OperationResult =
  | { index: number; endpoint: Endpoint; status: 'applied'; apiRequestId?: string }
  | { index: number; endpoint: Endpoint; status: 'failed' | 'unknown'; apiRequestId?: string };

export interface ChangePlan {
  /** The service changed; for a target that is not a service, its record id (`member:…`, `key:…`). */
  serviceId: string;
  /** The service's name; for a member their email, for a key its name. */
  serviceName: string;
  /** A target that is not a service (core/access/target.ts); absent: the service (or a part of it). */
  target?: PlanTarget;
  /**
   * The body of the basic-details PATCH (what policy rules and undo read). Requests made before
   * `operations` existed send exactly this.
   */
  update: ServiceUpdate;
  /** What approval sends, in order, one endpoint each (core/approval/operations.ts); absent: `update` alone. */
  operations?: Operation[];
  changes: FieldChange[];
  warnings: string[];
  /** Touched fields as they are now: the stale check compares against these at approval. */
  before: TouchedState;
  /**
   * For a capacity or power change: every capacity value the service showed, and what they will be
   * once it is applied (totals, warnings and risks read both sides, not only the touched fields).
   */
  capacity?: { before: CapacityValues; after: CapacityValues };
  /** What the person asked for, kept so that a request refused as stale can be asked again as the service is now. */
  intent?: ChangeIntent;
  /**
   * A risky change (a stop, a scale-down…): the service's live load when it was asked, or why it
   * could not be read (core/change/live-load.ts). Absent: not risky, or the service was not running.
   */
  liveLoad?: LiveLoadNote;
}

export const CHANGE_STATUSES = [
  'pending',
  /** Approved, waiting for its `applyAt` (a scheduled change); the requester may still cancel it. */
  'scheduled',
  'applying',
  'applied',
  'failed',
  'rejected',
  'cancelled',
  'expired',
] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];
export const FINAL_STATUSES: readonly ChangeStatus[] = ['applied', 'failed', 'rejected', 'cancelled', 'expired'];

export interface ChangeOutcome {
  /** The Cloud API's requestId of the update, when there was one. */
  apiRequestId?: string;
  /** A sentence for people: why it failed, was refused as stale, and so on. */
  message?: string;
  status?: number;
  /** For a request of several operations: what became of each, in order. */
  operations?: OperationResult[];
  /** A rejection: the reason the rejecter typed (shown in the message and told to the requester). */
  rejectedBecause?: string;
  /** Refused as stale (the service changed since it was asked): it may be asked again as the service is now. */
  stale?: true;
}

/** A change request as stored: the plan plus who asked, where, and what became of it. */
export interface ChangeRequest {
  id: string;
  channelId: string;
  requesterId: string;
  /**
   * The organization it changes (ORGANIZATIONS_FILE with more than one); absent: the default one,
   * as for every request stored before organizations.
   */
  organization?: string;
  plan: ChangePlan;
  createdAt: number;
  expiresAt: number;
  status: ChangeStatus;
  /** ts of the request's message in the channel, once posted. */
  messageTs?: string;
  /** ts of a temporary request's reminder (with Extend and Revert now), once posted. */
  reminderTs?: string;
  decidedBy?: string;
  decidedAt?: number;
  outcome?: ChangeOutcome;
  /**
   * The rules this request must satisfy, fixed when it was made. Absent on requests stored before
   * policies existed: they need the default (one approval from APPROVERS).
   */
  requirements?: Requirement[];
  /** sha256 of the policy file in force when the request was made; absent without POLICY_FILE. */
  policyDigest?: string;
  /** Approvals so far, oldest first; each counts for the requirements it names. */
  approvals?: Approval[];
  /** While applying: which replica holds the request, until when, and whether it sent the update. */
  lease?: ApplyLease;
  /**
   * Of a request of several operations: those the API confirmed so far, in order, each recorded
   * as it was confirmed (under the lease). A replica that takes the request over resumes at the
   * first operation not in this list instead of judging the earlier ones from the service.
   */
  confirmed?: OperationResult[];
  /** A time-boxed change: the bot reverts it this long after it is applied (core/change/temporary.ts). */
  temporary?: TemporaryTerms;
  /** A revert the bot files itself for this temporary request; it needs no approval. */
  revertOf?: string;
  /** Pushes the revert of this temporary request back by `temporary.durationMs` once approved. */
  extendOf?: string;
  /** Whose access an extension prolongs (the original's requester): never its approver without self-approval. */
  beneficiaryId?: string;
  /** The applied request an Undo takes back. */
  undoOf?: string;
  /** Posted as a reply in this thread (reverts and extensions live in the original's thread). */
  threadTs?: string;
  /**
   * ts of the request's message in its approval channel (a policy rule's `channel`, see
   * approvalChannelOf), once posted: the request with its buttons is there, and `channelId` (the
   * requester's) gets its record without them; both are updated as it moves.
   */
  approvalTs?: string;
  /** Why, in the requester's words (`because "…"`, the form's Reason); a policy rule may require it. */
  reason?: string;
  /** The ticket the change belongs to (`ticket ABC-123`); a policy rule may require one matching its pattern. */
  ticket?: string;
  /** Applied at once by someone on the policy's break-glass list, skipping approvals, windows and freezes. */
  breakGlass?: true;
  /** The break-glass request this one asks approvers to review after the fact (it sends nothing). */
  reviewOf?: string;
  /**
   * A scheduled change (`at TIME`, or deferred to a window's opening): once approved it waits in
   * "scheduled" until this time (app clock, ms), then is applied if the service still looks as it
   * did (docs/scheduled-changes.md). Its approval window (`expiresAt`) ends at this time too.
   */
  applyAt?: number;
}

export interface TemporaryTerms {
  durationMs: number;
  /** How long after it is applied the requester is reminded, with Extend and Revert now. */
  remindAfterMs: number;
}

/**
 * Ownership of a request in "applying". `fence` grows by one at every claim or takeover, so an
 * owner that lost the lease (paused, partitioned) can no longer send or record anything.
 * `until` is on the store's clock (Redis server time, or this process's in memory).
 */
export interface ApplyLease {
  owner: string;
  fence: number;
  until: number;
  /** The owner proved it held the lease and went on to send the update to ClickHouse Cloud. */
  sending: boolean;
  /** When it did (store clock). */
  sentAt?: number;
  /** When the current owner took the request over from a replica that stopped (store clock). */
  takenAt?: number;
}
