/**
 * Every seam of the middle layer in one place. approval/, commands/, summary/ and scheduler/
 * depend on these and on core/, never on adapters (slack/, cloud/, store/) or on each other's
 * classes; bot.ts plugs the adapters in.
 */
export type * from './approval-policy.js';
export type * from './audit-export.js';
export type * from './change-events.js';
export type * from './change-store.js';
export type * from './log.js';
export {
  MessengerError,
  type FileUpload,
  type Message,
  type Messenger,
  type MessengerFailure,
  type PostedMessage,
} from './messenger.js';
export type * from './modals.js';
export type * from './organizations.js';
export type * from './schedule-store.js';
export type * from './service-directory.js';
export { SendWindowClosedError } from './service-directory.js';
export type * from './services.js';
export type * from './cost.js';
export { COST_DAYS_KEPT } from './cost.js';
export { UnknownOrganizationError } from './organizations.js';
export { isStoreUnavailable, StoreUnavailableError } from './store-errors.js';
