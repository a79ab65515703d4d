/**
 * The table of change kinds: one module per field a change can touch (kind.ts says the shape).
 * A field added to TouchedState without a module here fails to compile. The order is the order
 * in which a request lists its changes.
 */
import type { PartName } from '../../service/parts.js';
import type { ChangeIntent, ChangePlan, TouchedField } from '../types.js';
import { apiKeyKind } from './api-key.js';
import { backupConfigKind } from './backup-config.js';
import { deleteKind } from './delete.js';
import { memberRoleKind } from './member-role.js';
import { coreDumpsKind } from './core-dumps.js';
import { encryptionKeyKind } from './encryption-key.js';
import { ipAccessKind } from './ip-access.js';
import type { ChangeKindModule, KindCommand } from './kind.js';
import { mysqlEndpointKind } from './mysql-endpoint.js';
import { nameKind } from './name.js';
import { privateEndpointsKind } from './private-endpoints.js';
import { releaseChannelKind } from './release-channel.js';
import { idleScalingKind } from './idle-scaling.js';
import { powerKind } from './power.js';
import { replicaMemoryKind } from './replica-memory.js';
import { replicasKind } from './replicas.js';
import { tagsKind } from './tags.js';
import { upgradeWindowKind } from './upgrade-window.js';
import { scalingScheduleKind } from './scaling-schedule.js';
import { queryEndpointKind } from './query-endpoint.js';
import { passwordKind } from './password.js';

export const KINDS = {
  name: nameKind,
  releaseChannel: releaseChannelKind,
  mysqlEndpoint: mysqlEndpointKind,
  ipAccessList: ipAccessKind,
  privateEndpointIds: privateEndpointsKind,
  tdeKeyId: encryptionKeyKind,
  tags: tagsKind,
  enableCoreDumps: coreDumpsKind,
  backupConfiguration: backupConfigKind,
  deletion: deleteKind,
  memberRoles: memberRoleKind,
  apiKey: apiKeyKind,
  upgradeWindow: upgradeWindowKind,
  scalingSchedule: scalingScheduleKind,
  serviceQueryEndpoint: queryEndpointKind,
  password: passwordKind,
  replicas: replicasKind,
  replicaMemory: replicaMemoryKind,
  idleScaling: idleScalingKind,
  power: powerKind,
} as const satisfies { [F in TouchedField]: ChangeKindModule<F> };

/** Every kind, in the order requests list their changes. */
export const KIND_LIST: ReadonlyArray<ChangeKindModule<TouchedField>> = Object.values(KINDS);

/** The kinds that can be granted for a while (`for 2h`), in the order a revert tells what it found. */
export const TEMPORARY_KINDS: ReadonlyArray<ChangeKindModule<TouchedField>> = [
  ipAccessKind,
  mysqlEndpointKind,
  queryEndpointKind,
  replicasKind,
  replicaMemoryKind,
  idleScalingKind,
  powerKind,
  memberRoleKind,
];

/** Every command that asks for a change, in the order help lists them. */
export const KIND_COMMANDS: readonly KindCommand[] = KIND_LIST.flatMap((kind) => kind.commands ?? []);

/** How sentences name the changes that can be temporary ("ip add, endpoint … mysql on, scale…"). */
export const TEMPORARY_FORMS: readonly string[] = TEMPORARY_KINDS.flatMap((kind) =>
  (kind.commands ?? []).flatMap((command) => command.temporaryForm ?? []),
);

const partsOfKind = (kind: ChangeKindModule<TouchedField>): PartName[] => [
  ...(kind.target ? [kind.target] : []),
  ...(kind.reads ?? []),
];

/** Approvals a plan needs when no policy rule names it: the most any of its kinds asks (1 by default). */
export function defaultApprovalsOf(plan: ChangePlan): number {
  return Math.max(
    1,
    ...KIND_LIST.filter((kind) => kind.field in plan.before).map((kind) => kind.defaultApprovals ?? 1),
  );
}

/** Whether an applied plan can be taken back with Undo: not when a kind it touches has nothing to take back. */
export function undoable(plan: ChangePlan): boolean {
  return !KIND_LIST.some((kind) => kind.field in plan.before && kind.noUndo === true);
}

/** Whether each approver must type the target's name to approve this plan. */
export function confirmsByName(plan: ChangePlan): boolean {
  return KIND_LIST.some((kind) => kind.field in plan.before && kind.confirmByName === true);
}

/** The parts of the service (core/service/parts.ts) that planning this intent reads. */
export function partsOfIntent(intent: ChangeIntent): PartName[] {
  const kinds = Object.keys(intent).flatMap((key) => kindOfIntent(key) ?? []);
  return [...new Set(kinds.flatMap(partsOfKind))];
}

/** The parts of the service a plan changes: read with the record for its stale check, verification and Undo. */
export function partsOfPlan(plan: ChangePlan): PartName[] {
  const touched = KIND_LIST.filter((kind) => kind.field in plan.before).flatMap(partsOfKind);
  return [...new Set(touched)];
}

/** Whether the policy's freezes hold this plan back: unless every kind it changes ignores them (kind.ts). */
export function freezesHold(plan: Pick<ChangePlan, 'changes'>): boolean {
  const kinds = [...new Set(plan.changes.map((change) => KINDS[change.field]))];
  return kinds.length === 0 || !kinds.every((kind) => kind.ignoresFreezes === true);
}

/** Whether the intent gives a time of day to read in a person's zone (only then is the zone looked up). */
export function hasLocalTimes(intent: ChangeIntent): boolean {
  return KIND_LIST.some((kind) => kind.localize && kind.intents.some((field) => intent[field] !== undefined));
}

/** The intent with every time of day read in `zone` as UTC, on the day it is asked (kinds' `localize`). */
export function localizeIntent(intent: ChangeIntent, zone: string, now: number): ChangeIntent {
  return KIND_LIST.reduce((localized, kind) => kind.localize?.(localized, zone, now) ?? localized, intent);
}

/** A plan every touched kind of which only contains a leak: break-glass may apply it without a duration. */
export function isContainment(plan: ChangePlan): boolean {
  const touched = KIND_LIST.filter((kind) => kind.field in plan.before);
  return touched.length > 0 && touched.every((kind) => kind.containment?.(plan) === true);
}

/** The kind that reads an intent field (ipAdd -> IP access). */
export function kindOfIntent(key: string): ChangeKindModule<TouchedField> | undefined {
  return KIND_LIST.find((kind) => (kind.intents as readonly string[]).includes(key));
}

export { asksForKeys, resolveQueryKeys } from './query-endpoint.js';
export { asksForHashes } from './password.js';
export type { ChangeKindModule, Draft, KindCommand, PlannedReverse, PlanProblem } from './kind.js';
