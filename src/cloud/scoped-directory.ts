/**
 * An organization's services as one channel sees them: its `services` rules (tags, names) narrow
 * every read, so a service outside them is "not found" there, in lists, lookups and summaries alike.
 */
import { inScope } from '../core/organization/rules.js';
import type { ServiceScope } from '../core/organization/types.js';
import type { ServiceDirectory } from '../ports/service-directory.js';

export function scopedDirectory(directory: ServiceDirectory, scope: ServiceScope | undefined): ServiceDirectory {
  if (scope === undefined) return directory;
  return {
    async listServices(filters, options) {
      const list = await directory.listServices(filters, options);
      return { ...list, services: list.services.filter((service) => inScope(scope, service)) };
    },
    async getService(serviceId, options) {
      const service = await directory.getService(serviceId, options);
      return service && inScope(scope, service) ? service : undefined;
    },
    updateService: (serviceId, update, options) => directory.updateService(serviceId, update, options),
    scaleReplicas: (serviceId, body, options) => directory.scaleReplicas(serviceId, body, options),
    changeState: (serviceId, command, options) => directory.changeState(serviceId, command, options),
    // Drift attribution only looks up activities of the services a summary shows (already scoped).
    listActivities: (window, options) => directory.listActivities(window, options),
    // Only asked for a service the channel found through getService or listServices (scoped).
    readBackups: (serviceId, options) => directory.readBackups(serviceId, options),
    readLoad: (serviceId, options) => directory.readLoad(serviceId, options),
    // Keys belong to the organization, not to a service: no scope narrows them.
    listApiKeys: (options) => directory.listApiKeys(options),
    listMembers: (options) => directory.listMembers(options),
    readQueryEndpoint: (serviceId, options) => directory.readQueryEndpoint(serviceId, options),
    readUpgradeWindow: (serviceId, options) => directory.readUpgradeWindow(serviceId, options),
    readScalingSchedule: (serviceId, options) => directory.readScalingSchedule(serviceId, options),
    readPart: (serviceId, part, options) => directory.readPart(serviceId, part, options),
    deleteService: (serviceId, options) => directory.deleteService(serviceId, options),
    // Members and keys belong to the organization: no service scope narrows them.
    updateMember: (userId, body, options) => directory.updateMember(userId, body, options),
    updateKey: (keyId, body, options) => directory.updateKey(keyId, body, options),
    writePart: (serviceId, part, body, options) => directory.writePart(serviceId, part, body, options),
    listRoles: (options) => directory.listRoles(options),
  };
}
