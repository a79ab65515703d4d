/**
 * A service's Query API endpoint as `GET …/serviceQueryEndpoint` answers it (official OpenAPI
 * document: `ServiceQueryAPIEndpoint`): the roles its keys get, the keys allowed, the origins.
 * The API answers 404 when the service has none (it is off).
 */
import { z } from 'zod';
import { lenient } from './lenient.js';

export const QueryEndpointSchema = z.looseObject({
  id: lenient(z.string()),
  roles: z.array(z.string()).catch([]),
  openApiKeys: z.array(z.string()).catch([]),
  /** Comma-separated domains; empty or absent: any origin. */
  allowedOrigins: lenient(z.string()),
});
export type QueryEndpoint = z.infer<typeof QueryEndpointSchema>;

/** The origins as a list; empty means any origin may call it. */
export const originsOf = (endpoint: QueryEndpoint): string[] =>
  (endpoint.allowedOrigins ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);

/** The admin role lets the keys write over HTTP. */
export const ADMIN_QUERY_ROLE = 'sql_console_admin';
