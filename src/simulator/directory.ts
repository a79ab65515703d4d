/**
 * The simulated organization as a ServiceDirectory in this process: the same records and update
 * rules as the HTTP simulator (state.ts), without HTTP, so the middle layer can be tested in
 * milliseconds. Failures are CloudApiErrors, as CloudClient would report the simulator's answers.
 */
import { randomUUID } from 'node:crypto';
import { parseServiceList } from '../cloud/envelopes.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ServiceRecord, ServiceUpdate } from '../core/service/schema.js';
import type { ServiceDirectory, ServiceList, ServiceUpdateResult } from '../ports/service-directory.js';
import { filterServices, OrganizationState, updateService, type ServiceRecordLike } from './state.js';
import { answer } from '../ports/answer.js';

export class InProcessDirectory implements ServiceDirectory {
  readonly state: OrganizationState;
  /** Every update that reached the organization (what would have been PATCHed), in order. */
  readonly updates: Array<{ serviceId: string; update: ServiceUpdate }> = [];

  constructor(services: readonly ServiceRecordLike[], orgId = 'org-in-process') {
    this.state = new OrganizationState(orgId, services);
  }

  listServices(filters: readonly string[] = []): Promise<ServiceList> {
    return answer(() => {
      const { services, skipped } = parseServiceList(structuredClone(filterServices(this.state.list(), filters)));
      return { services, skipped, requestId: randomUUID(), fetchedAt: Date.now() };
    });
  }

  async getService(serviceId: string): Promise<ServiceRecord | undefined> {
    return (await this.listServices()).services.find((service) => service.id === serviceId);
  }

  updateService(serviceId: string, update: ServiceUpdate): Promise<ServiceUpdateResult> {
    return answer(() => {
      const requestId = randomUUID();
      const outcome = updateService(this.state, serviceId, update);
      if (!outcome.ok)
        throw new CloudApiError('http', outcome.message, {
          status: outcome.status,
          apiMessage: outcome.message,
          requestId,
          method: 'PATCH',
        });
      this.updates.push({ serviceId, update: structuredClone(update) });
      const [service] = parseServiceList([structuredClone(outcome.value)]).services;
      if (!service)
        throw new CloudApiError('bad-response', 'the simulator returned a record without an id', { requestId });
      return { service, requestId };
    });
  }
}
