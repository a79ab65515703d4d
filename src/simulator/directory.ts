/**
 * The simulated organization as a ServiceDirectory in this process: the same records and update
 * rules as the HTTP simulator (state.ts, capacity.ts), without HTTP, so the middle layer can be
 * tested in milliseconds. Failures are CloudApiErrors, as CloudClient would report the simulator's
 * answers. State transitions settle at once unless `transitionMs` says otherwise.
 */
import { randomUUID } from 'node:crypto';
import { parseServiceList } from '../cloud/envelopes.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ReplicaScalingUpdate, ServiceRecord, ServiceUpdate, StateCommand } from '../core/service/schema.js';
import { parseActivities } from '../core/service/activity.js';
import type {
  ActivityList,
  ActivityWindow,
  ApiKeyList,
  ApiKeyUpdateResult,
  BackupsAnswer,
  MemberUpdateResult,
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
import { backupsOf, DEFAULT_BACKUP_CONFIGURATION } from './backups.js';
import { parseBackups } from '../core/service/backup.js';
import { parseApiKeys, type ApiKeyPatch } from '../core/access/api-key.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { readLoad, type ServiceLoad } from '../core/service/load.js';
import { defaultLoad, prometheusText } from './prometheus.js';
import type { QueryEndpoint } from '../core/service/query-endpoint.js';
import type { UpgradeWindow } from '../core/service/upgrade-window.js';
import type { ScalingSchedule } from '../core/service/scaling-schedule.js';
import { AccessDirectory, keyView, memberView, roleView } from './access.js';
import type { Outcome } from './records.js';
import { parseMembers, parseRoles, type Member, type Role } from '../core/access/member.js';
import { demoAccess } from './seed.js';

/** The key id the in-process directory says the bot uses: the one its own changes are logged under. */
const IN_PROCESS_KEY_ID = UNNAMED_API_ACTOR.id;

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
  private accessDirectory: AccessDirectory | undefined;

  constructor(
    services: readonly ServiceRecordLike[],
    orgId = 'org-in-process',
    options: InProcessDirectoryOptions = {},
  ) {
    this.state = new OrganizationState(orgId, services, options.transitionMs ?? 0);
    this.now = options.now ?? Date.now;
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
      const configuration = { ...DEFAULT_BACKUP_CONFIGURATION };
      return { ...parseBackups(backupsOf(serviceId, configuration, this.now())), configuration };
    });
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

  /** The demo organization's keys, as this directory's own changes left them. */
  listApiKeys(): Promise<ApiKeyList> {
    return answer(() => {
      const { keys, roles } = this.access();
      const views = [...keys.values()].map((key) => keyView(key, roles));
      return { ...parseApiKeys(views), ownKeyId: IN_PROCESS_KEY_ID };
    });
  }

  ownKeyId(): string {
    return IN_PROCESS_KEY_ID;
  }

  /** The simulator's rules for PATCH …/members/{userId}; its 404 and 400 as CloudApiErrors. */
  updateMember(userId: string, roleIds: readonly string[]): Promise<MemberUpdateResult> {
    return answer(() => {
      const access = this.access();
      const before = access.members.get(userId)?.assignedRoleIds;
      const outcome = access.applyMemberPatch(userId, { assignedRoleIds: [...roleIds] });
      const member = this.accessResult(outcome, `member ${userId} not found`);
      if (JSON.stringify(before) !== JSON.stringify(member.assignedRoleIds))
        this.state.recordScoped({}, 'organization_member_update_roles', UNNAMED_API_ACTOR, this.now());
      const [parsed] = parseMembers([memberView(member, access.roles)]).items;
      if (parsed === undefined)
        throw new CloudApiError('bad-response', 'the simulator returned a member without an id');
      return { member: parsed, requestId: randomUUID() };
    });
  }

  /** The simulator's rules for PATCH …/keys/{keyId} (one activity per kind of change); refusals as CloudApiErrors. */
  updateKey(keyId: string, patch: ApiKeyPatch): Promise<ApiKeyUpdateResult> {
    return answer(() => {
      const access = this.access();
      const outcome = access.applyKeyPatch(keyId, patch);
      const { key, updates } = this.accessResult(outcome, `API key ${keyId} not found`);
      for (const keyUpdateType of updates)
        this.state.recordScoped(
          { targetKeyId: keyId, keyUpdateType },
          'openapi_key_update',
          UNNAMED_API_ACTOR,
          this.now(),
        );
      const [parsed] = parseApiKeys([keyView(key, access.roles)]).keys;
      if (parsed === undefined) throw new CloudApiError('bad-response', 'the simulator returned a key without an id');
      return { key: parsed, requestId: randomUUID() };
    });
  }

  /** An accepted access PATCH's value, or the API's 404 (unknown) or 400 (refused) as CloudClient reports them. */
  private accessResult<T>(outcome: Outcome<T> | undefined, notFound: string): T {
    if (outcome?.ok) return outcome.value;
    const [status, message] = outcome === undefined ? [404, notFound] : [400, outcome.message];
    const code = status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST';
    throw new CloudApiError('http', `ClickHouse Cloud API answered ${status}: ${code}: ${message}`, {
      status,
      apiMessage: `${code}: ${message}`,
      requestId: randomUUID(),
      method: 'PATCH',
    });
  }

  /** The in-process directory keeps no query endpoints: every service has it off. */
  readQueryEndpoint(): Promise<QueryEndpoint | undefined> {
    return answer(() => undefined);
  }

  /** The in-process directory keeps no upgrade windows: none is set. */
  readUpgradeWindow(): Promise<UpgradeWindow | undefined> {
    return answer(() => undefined);
  }

  /** The in-process directory keeps no scaling schedules: none is set. */
  readScalingSchedule(): Promise<ScalingSchedule | undefined> {
    return answer(() => undefined);
  }

  listMembers(): Promise<Member[]> {
    return answer(() => {
      const { members, roles } = this.access();
      return parseMembers([...members.values()].map((member) => memberView(member, roles))).items;
    });
  }

  listRoles(): Promise<Role[]> {
    return answer(() => {
      const { members, keys, roles } = this.access();
      const views = roles.map((role) => roleView(role, this.state.orgId, [...members.values()], [...keys.values()]));
      return parseRoles(views).items;
    });
  }

  /** The demo's roles, members and keys, dated from the first time they are asked for. */
  private access(): AccessDirectory {
    this.accessDirectory ??= new AccessDirectory(demoAccess(IN_PROCESS_KEY_ID, 'in-process-secret', this.now()));
    return this.accessDirectory;
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
