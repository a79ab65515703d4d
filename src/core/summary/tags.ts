/**
 * Tag filters evaluated locally, with the same meaning the List services API gives them. One
 * unfiltered list read can then serve every scheduled summary, whatever its filters, which keeps
 * a burst of schedules under the API's 10 requests per 10 seconds.
 */
import { parseTagFilter, type ServiceRecord } from '../service/schema.js';

/**
 * `tag:KEY` needs the tag to be present; `tag:KEY=VALUE` needs that exact value (a tag sent
 * without a value reads as the empty value, as the API and our simulator treat it). Several
 * filters must all hold. A malformed filter matches nothing: the API would silently ignore it and
 * show the whole organization, and the Cloud client refuses such a filter for the same reason.
 */
export function matchesTagFilters(service: ServiceRecord, filters: readonly string[]): boolean {
  return filters.every((filter) => matchesTagFilter(service, filter));
}

export function filterServices(services: readonly ServiceRecord[], filters: readonly string[]): ServiceRecord[] {
  return services.filter((service) => matchesTagFilters(service, filters));
}

function matchesTagFilter(service: ServiceRecord, filter: string): boolean {
  const condition = parseTagFilter(filter);
  if (condition === undefined) return false;
  return (service.tags ?? []).some(
    (tag) => tag.key === condition.key && (condition.value === undefined || (tag.value ?? '') === condition.value),
  );
}
