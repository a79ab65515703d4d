/**
 * What the middle layer reads and changes in ClickHouse Cloud; cloud/client.ts implements it (and
 * simulator/directory.ts, in process, for tests).
 * Failures are CloudApiError (core/service/api-error.ts), whose `certainlyNotApplied` tells an
 * update that never happened from one whose outcome is unknown.
 */
import type { ApiKey } from '../core/access/api-key.js';
import type { Member, Role } from '../core/access/member.js';
import type { Backup, BackupConfiguration } from '../core/service/backup.js';
import type { ServiceLoad } from '../core/service/load.js';
import type { PartName, PartUpdates, PartValues } from '../core/service/parts.js';
import type { ApiKeyOperation, MemberOperation } from '../core/change/types.js';
import type { QueryEndpoint } from '../core/service/query-endpoint.js';
import type { UpgradeWindow } from '../core/service/upgrade-window.js';
import type { ScalingSchedule } from '../core/service/scaling-schedule.js';
import type { Activity } from '../core/service/activity.js';
import type { ReplicaScalingUpdate, ServiceRecord, ServiceUpdate, StateCommand } from '../core/service/schema.js';

export interface ServiceList {
  services: ServiceRecord[];
  requestId: string;
  fetchedAt: number;
  /**
   * Until when (epoch ms) the same read may answer again from a cache: `fetchedAt` plus the cache
   * window. Absent where nothing is cached.
   */
  cachedUntil?: number;
  /** Records the API sent that lacked even an id; they are left out, not fatal. */
  skipped: number;
}

/** The organization's activities in a window, as GET …/activities answered. */
export interface ActivityList {
  activities: Activity[];
  /** The API key the directory reads and changes with: an `api` activity with this actorId is the bot's. */
  ownKeyId: string;
  requestId: string;
  /** Entries that were not even objects; left out, not fatal. */
  skipped: number;
}

/** Both ends inclusive, epoch ms. */
export interface ActivityWindow {
  from: number;
  to: number;
}

export interface ServiceUpdateResult {
  service: ServiceRecord;
  requestId: string;
}

/**
 * Who waits for a read, which orders it in the API's shared budget (cloud/throttle.ts):
 * - 'approval': a change being approved or applied (its re-reads and the update): first;
 * - 'command': a person who typed a command or clicked: before every background read;
 * - 'background': nobody right now (summaries on a schedule, drift, reminders, followers, cost
 *   alerts, the start check): what is left.
 */
export type ReadPriority = 'approval' | 'command' | 'background';

export interface ReadOptions {
  /** Skip the read cache: for re-reads right before or after a change. */
  fresh?: boolean;
  /** Default: 'approval' when fresh, 'background' otherwise: a person's read says it is one. */
  priority?: ReadPriority;
  /** The Slack user (or schedule) the read is for: reads are shared fairly between people. */
  person?: string;
}

export interface UpdateOptions {
  /**
   * Runs right before each attempt goes on the wire (after any throttle or 429 wait); if it
   * throws, nothing is sent and its error is thrown. The approval flow proves there that it still
   * owns the request, so a replica that lost it while waiting can never send. It may answer a
   * time (epoch ms) by which the bytes must leave: checked synchronously right before sending,
   * and past it nothing is sent and SendWindowClosedError is thrown.
   */
  beforeSend?: () => Promise<number | undefined>;
}

/** The update was not sent: too much time passed between the last check and sending (a pause). */
export class SendWindowClosedError extends Error {
  override readonly name = 'SendWindowClosedError';
  constructor() {
    super('the update was not sent: its send window closed (the process was held up after the last ownership check)');
  }
}

export interface ServiceDirectory {
  /** The organization's services, narrowed by tag filters ("key" or "key=value"). */
  listServices(filters?: readonly string[], options?: ReadOptions): Promise<ServiceList>;
  /** One service by id, or undefined when the organization has no such service. */
  getService(serviceId: string, options?: ReadOptions): Promise<ServiceRecord | undefined>;
  /** PATCH of the service's basic settings (name, IP access list, tags, ...). */
  updateService(serviceId: string, update: ServiceUpdate, options?: UpdateOptions): Promise<ServiceUpdateResult>;
  /** PATCH …/replicaScaling: replicas, memory per replica, idle scaling. The result is the record after it. */
  scaleReplicas(serviceId: string, body: ReplicaScalingUpdate, options?: UpdateOptions): Promise<ServiceUpdateResult>;
  /**
   * PATCH …/state: start, stop or wake (`awake`) the service. The API answers once it has accepted
   * the command; the record then passes through `stopping`, `starting` or `awaking`: follow it with
   * fresh reads rather than assume it settled.
   */
  changeState(serviceId: string, command: StateCommand, options?: UpdateOptions): Promise<ServiceUpdateResult>;
  /**
   * GET …/activities: who changed what in the organization within the window. A key without the
   * right to read them gets a CloudApiError with status 401 or 403.
   */
  listActivities(window: ActivityWindow, options?: ReadOptions): Promise<ActivityList>;
  /** GET …/backups and GET …/backupConfiguration of one service: its backups newest first, and how it is backed up. */
  readBackups(serviceId: string, options?: ReadOptions): Promise<BackupsAnswer>;
  /** GET …/prometheus of a running service: queries running now and memory in use per replica. */
  readLoad(serviceId: string, options?: ReadOptions): Promise<ServiceLoad>;
  /** GET …/serviceQueryEndpoint: the service's Query API endpoint, undefined when it has none (off). */
  readQueryEndpoint(serviceId: string, options?: ReadOptions): Promise<QueryEndpoint | undefined>;
  /** GET …/upgradeWindow: when the service may be upgraded; undefined when none is set (404). */
  readUpgradeWindow(serviceId: string, options?: ReadOptions): Promise<UpgradeWindow | undefined>;
  /**
   * GET …/scalingSchedule: undefined when the service has none (404); a CloudApiError with status
   * 403 when the organization lacks the (beta) feature.
   */
  readScalingSchedule(serviceId: string, options?: ReadOptions): Promise<ScalingSchedule | undefined>;
  /** GET …/services/{id}/PART (core/service/parts.ts): null when the service has none (404). */
  readPart<P extends PartName>(serviceId: string, part: P, options?: ReadOptions): Promise<PartValues[P] | null>;
  /**
   * Writes …/services/{id}/PART with its spec's method, or DELETE when `body` is null; same
   * guarantees as updateService. Answers the part as the API answered it (null once removed).
   */
  writePart<P extends PartName>(
    serviceId: string,
    part: P,
    body: PartUpdates[P] | null,
    options?: UpdateOptions,
  ): Promise<{ value: PartValues[P] | null; requestId: string }>;
  /** DELETE …/services/{id} (a stopped service); same guarantees as updateService. */
  deleteService(serviceId: string, options?: UpdateOptions): Promise<{ requestId: string }>;
  /** PATCH …/members/{userId} with the whole role list; same guarantees as updateService. */
  updateMember(
    userId: string,
    body: MemberOperation['body'],
    options?: UpdateOptions,
  ): Promise<{ member: Member; requestId: string }>;
  /** PATCH …/keys/{keyId}: state or expiry; same guarantees as updateService. */
  updateKey(
    keyId: string,
    body: ApiKeyOperation['body'],
    options?: UpdateOptions,
  ): Promise<{ key: ApiKey; requestId: string }>;
  /** GET …/members: the organization's people and their roles. */
  listMembers(options?: ReadOptions): Promise<Member[]>;
  /** GET …/roles: the organization's roles, system and custom, with who holds them. */
  listRoles(options?: ReadOptions): Promise<Role[]>;
  /** GET …/keys: the organization's API keys, and which one the bot uses. */
  listApiKeys(options?: ReadOptions): Promise<ApiKeyList>;
}

export interface ApiKeyList {
  keys: ApiKey[];
  /** The id of the key the bot authenticates with. */
  ownKeyId: string;
  skipped: number;
}

export interface BackupsAnswer {
  backups: Backup[];
  /** Undefined when the key may not read it (the answer still lists the backups). */
  configuration?: BackupConfiguration;
  /** Backups left out because they could not be read. */
  skipped: number;
}
