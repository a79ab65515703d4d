/**
 * The simulated organization as a ServiceDirectory in this process: the same records and update
 * rules as the HTTP simulator (state.ts, capacity.ts), without HTTP, so the middle layer can be
 * tested in milliseconds. Failures are CloudApiErrors, as CloudClient would report the simulator's
 * answers. State transitions settle at once unless `transitionMs` says otherwise.
 */
import { deletionRefusal } from './create.js';
import { randomUUID } from 'node:crypto';
import { parseServiceList } from '../cloud/envelopes.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ReplicaScalingUpdate, ServiceRecord, ServiceUpdate, StateCommand } from '../core/service/schema.js';
import { parseActivities } from '../core/service/activity.js';
import type {
  ActivityList,
  ActivityWindow,
  ApiKeyList,
  BackupsAnswer,
  ServiceDirectory,
  ServiceList,
  ServiceUpdateResult,
} from '../ports/service-directory.js';
import {
  changeServiceState,
  filterServices,
  OrganizationState,
  scaleService,
  serviceNotFound,
  updateService,
  UNNAMED_API_ACTOR,
  type ServiceRecordLike,
  type UpdateResult,
} from './state.js';
import { answer } from '../ports/answer.js';
import type { UsageCostAnswer, UsageCostSource } from '../ports/cost.js';
import type { DayRange } from '../core/cost/period.js';
import { parseCostRows } from '../core/cost/schema.js';
import { usageCost } from './cost.js';
import {
  backupsOf,
  DEFAULT_BACKUP_CONFIGURATION,
  patchBackupConfiguration,
  type BackupConfiguration,
} from './backups.js';
import type { PartName, PartUpdates, PartValues } from '../core/service/parts.js';
import type { Outcome } from './records.js';
import { upsertQueryEndpoint, type QueryEndpoint as StoredQueryEndpoint } from './query-endpoint.js';
import { changePassword } from './service-password.js';
import { parseBackups } from '../core/service/backup.js';
import { parseApiKeys } from '../core/access/api-key.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { readLoad, type ServiceLoad } from '../core/service/load.js';
import { defaultLoad, prometheusText } from './prometheus.js';
import type { QueryEndpoint } from '../core/service/query-endpoint.js';
import { UpgradeWindowSchema, type UpgradeWindow } from '../core/service/upgrade-window.js';
import { ScalingScheduleSchema, type ScalingSchedule } from '../core/service/scaling-schedule.js';
import {
  parseUpgradeWindow,
  secondaryRefusal,
  windowOwner,
  type UpgradeWindow as StoredWindow,
} from './upgrade-window.js';
import { parseSchedule, scheduleView, type ScheduleEntry } from './schedules.js';
import { keyView, memberView, patchKey, patchMember, roleView } from './access.js';
import type { ApiKeyOperation, MemberOperation } from '../core/change/types.js';
import type { ApiKey } from '../core/access/api-key.js';
import { parseMembers, parseRoles, type Member, type Role } from '../core/access/member.js';
import { demoAccess, demoWindowsAndSchedules } from './seed.js';

/** The key id the in-process directory says the bot uses. */
const IN_PROCESS_KEY_ID = 'in-process-key';

export interface InProcessDirectoryOptions {
  /** How long `stopping`, `starting` and `awaking` last (ms); 0, the default, settles at once. */
  transitionMs?: number;
  now?: () => number;
}

export class InProcessDirectory implements ServiceDirectory, UsageCostSource {
  readonly state: OrganizationState;
  /** Every update that reached the organization (what would have been PATCHed), in order. */
  readonly updates: Array<{ serviceId: string; update: ServiceUpdate }> = [];
  /** Every replica scaling body that was applied, in order. */
  readonly scalings: Array<{ serviceId: string; body: ReplicaScalingUpdate }> = [];
  /** Every state command that was accepted, in order. */
  readonly stateChanges: Array<{ serviceId: string; command: StateCommand }> = [];
  /** Every usageCost read, in order (what would have been a GET). */
  readonly usageCostReads: DayRange[] = [];
  private readonly now: () => number;
  /** Each service's backup configuration once changed (the default until then). */
  private readonly backupConfigurations = new Map<string, BackupConfiguration>();
  /** Each service's Query API endpoint while it is on. */
  private readonly queryEndpoints = new Map<string, StoredQueryEndpoint>();
  private accessState: ReturnType<typeof demoAccess> | undefined;
  /** Upgrade windows and scaling schedules, as the HTTP simulator keeps them (no feature switches here). */
  private readonly upgradeWindows = new Map<string, StoredWindow>();
  private readonly schedules = new Map<string, ScheduleEntry[]>();

  /** The demo's upgrade windows and scaling schedules (seed.ts). */
  private seedWindowsAndSchedules(): void {
    const demo = demoWindowsAndSchedules();
    for (const [id, window] of demo.windows) this.upgradeWindows.set(id, window);
    for (const [id, entries] of demo.schedules) this.schedules.set(id, entries);
  }

  constructor(
    services: readonly ServiceRecordLike[],
    orgId = 'org-in-process',
    options: InProcessDirectoryOptions = {},
  ) {
    this.state = new OrganizationState(orgId, services, options.transitionMs ?? 0);
    this.now = options.now ?? Date.now;
    this.seedWindowsAndSchedules();
  }

  /** The simulator's usageCost over the organization, with its 400s as CloudApiErrors. */
  usageCost(range: DayRange, filters: readonly string[] = []): Promise<UsageCostAnswer> {
    return answer(() => {
      this.usageCostReads.push(range);
      const query = new URLSearchParams({ from_date: range.from, to_date: range.to });
      for (const filter of filters) query.append('filter', filter);
      const all = this.state.list();
      const outcome = usageCost(query, filterServices(all, filters), all, this.now());
      if (!outcome.ok) {
        throw new CloudApiError('http', `ClickHouse Cloud API answered 400: BAD_REQUEST: ${outcome.message}`, {
          status: 400,
          apiMessage: `BAD_REQUEST: ${outcome.message}`,
          method: 'GET',
          path: 'usageCost',
        });
      }
      return { rows: parseCostRows(structuredClone(outcome.value.costs)).rows, requestId: randomUUID() };
    });
  }

  listServices(filters: readonly string[] = []): Promise<ServiceList> {
    return answer(() => {
      this.state.settle(this.now());
      const { services, skipped } = parseServiceList(structuredClone(filterServices(this.state.list(), filters)));
      return { services, skipped, requestId: randomUUID(), fetchedAt: Date.now() };
    });
  }

  async getService(serviceId: string): Promise<ServiceRecord | undefined> {
    return (await this.listServices()).services.find((service) => service.id === serviceId);
  }

  updateService(serviceId: string, update: ServiceUpdate): Promise<ServiceUpdateResult> {
    return answer(() => {
      const result = this.result(updateService(this.state, serviceId, update, undefined, this.now()), 'PATCH');
      this.updates.push({ serviceId, update: structuredClone(update) });
      return result;
    });
  }

  scaleReplicas(serviceId: string, body: ReplicaScalingUpdate): Promise<ServiceUpdateResult> {
    return answer(() => {
      const result = this.result(scaleService(this.state, serviceId, body, undefined, this.now()), 'PATCH');
      this.scalings.push({ serviceId, body: structuredClone(body) });
      return result;
    });
  }

  changeState(serviceId: string, command: StateCommand): Promise<ServiceUpdateResult> {
    return answer(() => {
      const outcome = changeServiceState(this.state, serviceId, { command }, undefined, this.now());
      const result = this.result(outcome, 'PATCH');
      this.stateChanges.push({ serviceId, command });
      return result;
    });
  }

  /** The activity log in the window; this directory's own changes are logged under UNNAMED_API_ACTOR's key id. */
  listActivities(window: ActivityWindow): Promise<ActivityList> {
    return answer(() => {
      const { activities, skipped } = parseActivities(this.state.activities(window.from, window.to));
      return { activities, skipped, ownKeyId: UNNAMED_API_ACTOR.id, requestId: randomUUID() };
    });
  }

  /** The default backup configuration's backups (the in-process directory keeps no configuration of its own). */
  readBackups(serviceId: string): Promise<BackupsAnswer> {
    return answer(() => {
      const configuration = this.backupConfigurationOf(serviceId);
      return { ...parseBackups(backupsOf(serviceId, configuration, this.now())), configuration };
    });
  }

  readPart<P extends PartName>(serviceId: string, part: P): Promise<PartValues[P] | null> {
    return answer(() => {
      this.existing(serviceId);
      return this.partTable(serviceId)[part].read();
    });
  }

  writePart<P extends PartName>(
    serviceId: string,
    part: P,
    body: PartUpdates[P] | null,
  ): Promise<{ value: PartValues[P] | null; requestId: string }> {
    return answer(() => {
      this.existing(serviceId);
      const outcome = this.partTable(serviceId)[part].write(body);
      if (!outcome.ok) throw new CloudApiError('http', outcome.message, { status: 400, requestId: randomUUID() });
      return { value: outcome.value, requestId: randomUUID() };
    });
  }

  /** How each part of a service reads and is written, as the HTTP simulator does it. */
  private partTable(serviceId: string): {
    [P in PartName]: {
      read(): PartValues[P] | null;
      write(body: PartUpdates[P] | null): Outcome<PartValues[P] | null>;
    };
  } {
    return {
      backupConfiguration: {
        read: () => this.backupConfigurationOf(serviceId),
        write: (body) => {
          if (body === null) return { ok: false, message: 'the backup configuration cannot be removed' };
          const outcome = patchBackupConfiguration(this.backupConfigurationOf(serviceId), body);
          if (outcome.ok) this.backupConfigurations.set(serviceId, outcome.value);
          return outcome;
        },
      },
      backups: {
        read: () => parseBackups(backupsOf(serviceId, this.backupConfigurationOf(serviceId), this.now())).backups,
        write: () => ({ ok: false, message: 'backups are only read' }),
      },
      upgradeWindow: {
        read: () => this.upgradeWindowOf(serviceId) ?? null,
        write: (body) => {
          const refused = secondaryRefusal(this.existing(serviceId));
          if (refused !== undefined) return { ok: false, message: refused };
          if (body === null) {
            this.upgradeWindows.delete(serviceId);
            return { ok: true, value: null };
          }
          const outcome = parseUpgradeWindow(body);
          if (!outcome.ok) return outcome;
          this.upgradeWindows.set(serviceId, outcome.value);
          return { ok: true, value: UpgradeWindowSchema.parse(outcome.value) };
        },
      },
      scalingSchedule: {
        read: () => this.scheduleOf(serviceId) ?? null,
        write: (body) => {
          const outcome = parseSchedule(body ?? { entries: [] });
          if (!outcome.ok) return outcome;
          if (outcome.value.length === 0) this.schedules.delete(serviceId);
          else this.schedules.set(serviceId, outcome.value);
          return { ok: true, value: this.scheduleOf(serviceId) ?? null };
        },
      },
      serviceQueryEndpoint: {
        read: () => this.queryEndpointOf(serviceId) ?? null,
        write: (body) => {
          if (body === null) {
            const had = this.queryEndpoints.delete(serviceId);
            return had ? { ok: true, value: null } : { ok: false, message: 'no query endpoint is configured' };
          }
          const keyIds = this.access().keys.map((key) => key.id);
          const outcome = upsertQueryEndpoint(this.queryEndpoints.get(serviceId), body, keyIds);
          if (!outcome.ok) return outcome;
          this.queryEndpoints.set(serviceId, outcome.value);
          return { ok: true, value: { ...outcome.value } };
        },
      },
      password: {
        read: () => null,
        write: (body) => {
          if (body === null) return { ok: false, message: 'a password cannot be removed' };
          const outcome = changePassword(body);
          if (!outcome.ok) return outcome;
          const { generated } = outcome.value;
          return { ok: true, value: generated === undefined ? {} : { password: generated } };
        },
      },
    };
  }

  private upgradeWindowOf(serviceId: string): UpgradeWindow | undefined {
    const record = this.existing(serviceId);
    const window = this.upgradeWindows.get(windowOwner(record, this.state.list()));
    return window && UpgradeWindowSchema.parse({ ...window });
  }

  private scheduleOf(serviceId: string): ScalingSchedule | undefined {
    const entries = this.schedules.get(serviceId);
    const view = entries && scheduleView(this.existing(serviceId), entries, this.now());
    return view === undefined ? undefined : ScalingScheduleSchema.parse(view);
  }

  private backupConfigurationOf(serviceId: string): BackupConfiguration {
    return { ...(this.backupConfigurations.get(serviceId) ?? DEFAULT_BACKUP_CONFIGURATION) };
  }

  private existing(serviceId: string): ServiceRecord {
    const record = this.state.get(serviceId);
    if (record === undefined) throw new CloudApiError('http', serviceNotFound(serviceId), { status: 404 });
    return record as ServiceRecord;
  }

  /** The simulator's metrics of the service under its default load, read as the client reads them. */
  readLoad(serviceId: string): Promise<ServiceLoad> {
    return answer(() => {
      const record = this.state.get(serviceId);
      if (record === undefined) throw new CloudApiError('http', serviceNotFound(serviceId), { status: 404 });
      const text = prometheusText(this.state.orgId, record, defaultLoad(record, this.now()), this.now(), true);
      return readLoad(parsePrometheusTextFormat(text));
    });
  }

  /** The demo organization's keys (the in-process directory keeps no access data of its own). */
  listApiKeys(): Promise<ApiKeyList> {
    return answer(() => {
      const seed = this.access();
      return { ...parseApiKeys(seed.keys.map((key) => keyView(key, seed.roles))), ownKeyId: IN_PROCESS_KEY_ID };
    });
  }

  ownKeyId(): string {
    return IN_PROCESS_KEY_ID;
  }

  /** The service's Query API endpoint, as a change through the bot left it (off until then). */
  readQueryEndpoint(serviceId: string): Promise<QueryEndpoint | undefined> {
    return answer(() => this.queryEndpointOf(serviceId));
  }

  private queryEndpointOf(serviceId: string): QueryEndpoint | undefined {
    const stored = this.queryEndpoints.get(serviceId);
    return stored && { ...stored };
  }

  readUpgradeWindow(serviceId: string): Promise<UpgradeWindow | undefined> {
    return answer(() => this.upgradeWindowOf(serviceId));
  }

  readScalingSchedule(serviceId: string): Promise<ScalingSchedule | undefined> {
    return answer(() => this.scheduleOf(serviceId));
  }

  listMembers(): Promise<Member[]> {
    return answer(() => {
      const seed = this.access();
      return parseMembers(seed.members.map((member) => memberView(member, seed.roles))).items;
    });
  }

  listRoles(): Promise<Role[]> {
    return answer(() => {
      const seed = this.access();
      return parseRoles(seed.roles.map((role) => roleView(role, this.state.orgId, seed.members, seed.keys))).items;
    });
  }

  /** A stopped service goes through `terminating`, then is gone (at once unless `transitionMs`). */
  deleteService(serviceId: string): Promise<{ requestId: string }> {
    return answer(() => {
      const record = this.existing(serviceId);
      const refused = deletionRefusal(record);
      if (refused !== undefined) throw new CloudApiError('http', refused, { status: 400, requestId: randomUUID() });
      this.state.beginTransition(serviceId, 'terminating', null, this.now());
      return { requestId: randomUUID() };
    });
  }

  /** The demo organization's people and keys, as changed since (made on first use). */
  private access() {
    this.accessState ??= demoAccess(IN_PROCESS_KEY_ID, 'in-process-secret', this.now());
    return this.accessState;
  }

  updateMember(userId: string, body: MemberOperation['body']): Promise<{ member: Member; requestId: string }> {
    return answer(() => {
      const { members, roles } = this.access();
      const changed = patchEntry(
        members,
        members.findIndex((member) => member.userId === userId),
        `member ${userId}`,
        (member) => patchMember(member, body, roles),
        (member) => parseMembers([memberView(member, roles)]).items[0],
      );
      return { member: changed.value, requestId: changed.requestId };
    });
  }

  updateKey(keyId: string, body: ApiKeyOperation['body']): Promise<{ key: ApiKey; requestId: string }> {
    return answer(() => {
      const { keys, roles } = this.access();
      const changed = patchEntry(
        keys,
        keys.findIndex((key) => key.id === keyId),
        `key ${keyId}`,
        (key) => {
          const outcome = patchKey(key, body, roles);
          return outcome.ok ? { ok: true, value: outcome.value.key } : outcome;
        },
        (key) => parseApiKeys([keyView(key, roles)]).keys[0],
      );
      return { key: changed.value, requestId: changed.requestId };
    });
  }

  /** The record after the change, or the refusal as CloudClient would report it. */
  private result(outcome: UpdateResult, method: string): ServiceUpdateResult {
    const requestId = randomUUID();
    if (!outcome.ok) {
      throw new CloudApiError('http', outcome.message, {
        status: outcome.status,
        apiMessage: outcome.message,
        requestId,
        method,
      });
    }
    const [service] = parseServiceList([structuredClone(outcome.value)]).services;
    if (!service) {
      throw new CloudApiError('bad-response', 'the simulator returned a record without an id', { requestId });
    }
    return { service, requestId };
  }
}

/**
 * A PATCH of one member or key of the demo organization: found (else 404), changed by the
 * simulator's rules (else their 400), kept, and read back as the client reads the API's answer.
 */
function patchEntry<Entry, Parsed>(
  entries: Entry[],
  index: number,
  what: string,
  patched: (entry: Entry) => Outcome<Entry>,
  readBack: (entry: Entry) => Parsed | undefined,
): { value: Parsed; requestId: string } {
  const entry = entries[index];
  if (entry === undefined) throw new CloudApiError('http', `${what} not found`, { status: 404 });
  const outcome = patched(entry);
  if (!outcome.ok) throw new CloudApiError('http', outcome.message, { status: 400, requestId: randomUUID() });
  entries[index] = outcome.value;
  const value = readBack(outcome.value);
  if (value === undefined) throw new CloudApiError('bad-response', `the ${what} could not be read back`);
  return { value, requestId: randomUUID() };
}
