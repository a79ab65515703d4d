/**
 * `query-endpoint SERVICE`: whether the service's Query API endpoint is on, the role its keys get,
 * which keys may call it (by name and last four characters) and from which origins.
 */
import type { ApiKey } from '../access/api-key.js';
import { ADMIN_QUERY_ROLE, originsOf, type QueryEndpoint } from '../service/query-endpoint.js';
import type { ServiceRecord } from '../service/schema.js';
import { code, esc, header, section, serviceRef, serviceRefPlain, type Block } from './mrkdwn.js';

const ROLE_NAMES: Record<string, string> = { sql_console_read_only: 'read-only', sql_console_admin: 'admin' };

function keyText(id: string, keys: readonly ApiKey[]): string {
  const key = keys.find((candidate) => candidate.id === id);
  if (key === undefined) return `${code(id)} (no such key any more)`;
  const state = key.state === 'enabled' ? '' : ` (${esc(key.state)})`;
  return `*${esc(key.name) || code(key.id)}* ${code(`…${key.keySuffix ?? '????'}`)}${state}`;
}

export function queryEndpointBlocks(
  service: ServiceRecord,
  endpoint: QueryEndpoint | undefined,
  keys: readonly ApiKey[],
): Block[] {
  const title = header(`Query API endpoint of ${serviceRefPlain(service.name, service.id)}`);
  if (endpoint === undefined)
    return [
      title,
      section(
        `${serviceRef(service.name, service.id)}\nThe Query API endpoint is *off*: no API key can query this service over HTTP.`,
      ),
    ];
  const roles = endpoint.roles.map((role) => ROLE_NAMES[role] ?? esc(role)).join(', ') || 'none';
  const origins = originsOf(endpoint);
  const lines = [
    `The Query API endpoint is *on*, role ${roles}.`,
    ...(endpoint.roles.includes(ADMIN_QUERY_ROLE)
      ? [':warning: Admin: the keys below can write to the service over HTTP.']
      : []),
    `Keys allowed: ${endpoint.openApiKeys.map((id) => keyText(id, keys)).join(', ') || 'none'}`,
    origins.length === 0
      ? ':warning: Origins: any (no origin is named, so a browser page anywhere may call it).'
      : `Origins: ${origins.map((origin) => code(origin)).join(', ')}`,
  ];
  return [title, section(`${serviceRef(service.name, service.id)}\n${lines.join('\n')}`)];
}
