/**
 * What the middle layer reads and changes in ClickHouse Cloud; cloud/client.ts implements it.
 * Failures are CloudApiError (core/service/api-error.ts), whose `certainlyNotApplied` tells an
 * update that never happened from one whose outcome is unknown.
 */
import type { ServiceRecord, ServiceUpdate } from '../core/service/schema.js';

export interface ServiceList {
  services: ServiceRecord[];
  requestId: string;
  fetchedAt: number;
  /** Records the API sent that lacked even an id; they are left out, not fatal. */
  skipped: number;
}

export interface ServiceUpdateResult {
  service: ServiceRecord;
  requestId: string;
}

export interface ReadOptions {
  /** Skip the read cache (still single flight): for re-reads right before or after a change. */
  fresh?: boolean;
}

export interface ServiceDirectory {
  /** The organization's services, narrowed by tag filters ("key" or "key=value"). */
  listServices(filters?: readonly string[], options?: ReadOptions): Promise<ServiceList>;
  /** One service by id, or undefined when the organization has no such service. */
  getService(serviceId: string, options?: ReadOptions): Promise<ServiceRecord | undefined>;
  updateService(serviceId: string, update: ServiceUpdate): Promise<ServiceUpdateResult>;
}
