/**
 * The live load a risky change request shows its approvers (issue 38): which plans need it (the
 * kinds declare it: `loadConcern`), and what the request keeps of a read as data, so that its
 * message can be drawn again after a restart without reading the metrics again.
 */
import {
  combinedConcern,
  loadFigures,
  type LiveLoadNote,
  type LoadConcern,
  type ServiceLoad,
} from '../service/load.js';
import { KIND_LIST } from './kinds/index.js';
import type { ChangePlan } from './types.js';

export type { LiveLoadNote, LoadReadFailure } from '../service/load.js';

/** What about the plan makes its service's live load worth showing; undefined: nothing. */
export function loadConcernOf(plan: ChangePlan): LoadConcern | undefined {
  return combinedConcern(KIND_LIST.map((kind) => kind.loadConcern?.(plan)));
}

export function loadReadNote(
  load: ServiceLoad,
  sizeGb: number | undefined,
  readAt: number,
  askedAt: number,
): LiveLoadNote {
  return { kind: 'read', readAt, askedAt, ...loadFigures(load, sizeGb) };
}

const GIB = 1024 ** 3;

/** What in a read load the plan's concern warns about. */
export interface LoadAlarms {
  /** Queries running that the change ends. */
  queriesEnded?: number;
  /** Memory in use on the busiest replica above the new size: both, in bytes and GB. */
  memoryAbove?: { inUseBytes: number; newSizeGb: number };
}

export function loadAlarms(note: LiveLoadNote, concern: LoadConcern | undefined): LoadAlarms {
  if (note.kind !== 'read' || concern === undefined) return {};
  const { queries, busiestMemoryBytes } = note;
  const newSize = concern.newReplicaMemoryGb;
  return {
    ...(concern.endsQueries && queries !== undefined && queries > 0 ? { queriesEnded: queries } : {}),
    ...(newSize !== undefined && busiestMemoryBytes !== undefined && busiestMemoryBytes > newSize * GIB
      ? { memoryAbove: { inUseBytes: busiestMemoryBytes, newSizeGb: newSize } }
      : {}),
  };
}
