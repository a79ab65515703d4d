/**
 * The service query endpoint (official OpenAPI document: `GET`/`POST`/`DELETE
 * …/services/{serviceId}/serviceQueryEndpoint`, `InstanceServiceQueryApiEndpointsPostRequest`,
 * `ServiceQueryAPIEndpoint`), as a pure function: POST creates it or updates it in place (same id),
 * and the keys it names must be keys of the organization.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { validate } from './capacity.js';
import type { Outcome } from './records.js';

export interface QueryEndpoint {
  id: string;
  roles: Array<'sql_console_read_only' | 'sql_console_admin'>;
  openApiKeys: string[];
  allowedOrigins: string;
}

const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$|^localhost$/i;

const QueryEndpointBodySchema = z.strictObject({
  roles: z
    .array(
      z.enum(['sql_console_read_only', 'sql_console_admin'], {
        error: 'must be one of: sql_console_read_only, sql_console_admin',
      }),
      {
        error: 'must be array',
      },
    )
    .optional(),
  openApiKeys: z.array(z.string({ error: 'must be string' }), { error: 'must be array' }).optional(),
  // Not documented: how origins are checked; here each must be a domain name.
  allowedOrigins: z
    .string({ error: 'must be string' })
    .refine((text) => text === '' || text.split(',').every((origin) => DOMAIN.test(origin.trim())), {
      error: 'must be a comma separated list of domains',
    })
    .optional(),
});

/** The endpoint after a POST body (fields left out keep their value, or start empty), or the API's 400 sentence. */
export function upsertQueryEndpoint(
  current: QueryEndpoint | undefined,
  body: unknown,
  keyIds: readonly string[],
): Outcome<QueryEndpoint> {
  const parsed = validate(QueryEndpointBodySchema, body);
  if (!parsed.ok) return parsed;
  const { roles, openApiKeys, allowedOrigins } = parsed.value;
  const unknown = (openApiKeys ?? []).find((id) => !keyIds.includes(id));
  if (unknown !== undefined) return { ok: false, message: `API key ${unknown} is not a key of this organization` };
  return {
    ok: true,
    value: {
      id: current?.id ?? randomUUID(),
      roles: [...new Set(roles ?? current?.roles ?? [])],
      openApiKeys: [...new Set(openApiKeys ?? current?.openApiKeys ?? [])],
      allowedOrigins:
        allowedOrigins
          ?.split(',')
          .map((origin) => origin.trim())
          .join(',') ??
        current?.allowedOrigins ??
        '',
    },
  };
}
