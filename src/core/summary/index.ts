/** Scheduled service summaries: the pure core (filters, snapshots, drift, totals, messages). */
export { filterServices, matchesTagFilters } from './tags.js';
export {
  parseSnapshot,
  serviceSnapshot,
  ServiceSnapshotSchema,
  SNAPSHOT_VERSION,
  SnapshotSchema,
  takeSnapshot,
  type ServiceSnapshot,
  type Snapshot,
} from './snapshot.js';
export {
  attributeDrift,
  diffSnapshots,
  isBotChange,
  updateEffects,
  type ChangeAuthor,
  type DriftItem,
  type DriftKind,
  type TimeWindow,
} from './drift.js';
export { ACTIVITY_TYPES_OF, attributeFromActivities, authorOf, type AttributionOptions } from './attribution.js';
export {
  findingsByService,
  memoryRange,
  replicaRange,
  summaryTotals,
  type FindingsByService,
  type Range,
  type SummaryTotals,
} from './totals.js';
export {
  activityLogFallbackNote,
  DEFAULT_SUMMARY_TITLE,
  serviceSummaryLine,
  summaryFailureMessage,
  summaryMessages,
  type SummaryMessage,
  type ActivityLogUnread,
  type SummaryInput,
  type SummaryMessages,
} from './render.js';
export { driftAuthorText } from './author-text.js';
export { DETAIL_BUDGET, packParts, type DetailPart } from './pack.js';
export {
  diffKeys,
  keysSection,
  KeySnapshotSchema,
  KeysSectionSchema,
  type KeyDriftItem,
  type KeyDriftKind,
  type KeySnapshot,
  type KeysSection,
} from './key-drift.js';
export {
  attributeKeyDrift,
  explainKeyDrift,
  keysOverview,
  type FlaggedKey,
  type KeysOverview,
  type KeysRead,
} from './keys.js';
export { keyDriftLine, keysHeadline, keysPart } from './keys-render.js';
