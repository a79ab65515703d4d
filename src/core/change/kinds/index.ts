/**
 * The table of change kinds: one module per field a change can touch (kind.ts says the shape).
 * A field added to TouchedState without a module here fails to compile. The order is the order
 * in which a request lists its changes.
 */
import type { TouchedField } from '../types.js';
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

export const KINDS = {
  name: nameKind,
  releaseChannel: releaseChannelKind,
  mysqlEndpoint: mysqlEndpointKind,
  ipAccessList: ipAccessKind,
  privateEndpointIds: privateEndpointsKind,
  tdeKeyId: encryptionKeyKind,
  tags: tagsKind,
  enableCoreDumps: coreDumpsKind,
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
  replicasKind,
  replicaMemoryKind,
  idleScalingKind,
  powerKind,
];

/** Every command that asks for a change, in the order help lists them. */
export const KIND_COMMANDS: readonly KindCommand[] = KIND_LIST.flatMap((kind) => kind.commands ?? []);

/** How sentences name the changes that can be temporary ("ip add, endpoint … mysql on, scale…"). */
export const TEMPORARY_FORMS: readonly string[] = TEMPORARY_KINDS.flatMap((kind) =>
  (kind.commands ?? []).flatMap((command) => command.temporaryForm ?? []),
);

/** The kind that reads an intent field (ipAdd -> IP access). */
export function kindOfIntent(key: string): ChangeKindModule<TouchedField> | undefined {
  return KIND_LIST.find((kind) => (kind.intents as readonly string[]).includes(key));
}

export type { ChangeKindModule, Draft, KindCommand, PlannedReverse, PlanProblem } from './kind.js';
