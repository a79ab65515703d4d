/** Shared helpers: start a demo simulator and talk to it over real HTTP with global fetch. */
import { afterEach, expect } from 'vitest';
import { DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG_ID, demoServices } from '../../src/simulator/seed.js';
import { CloudSimulator, type SimulatorOptions } from '../../src/simulator/server.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function startDemo(overrides: Partial<SimulatorOptions> = {}): Promise<CloudSimulator> {
  return CloudSimulator.start({
    keyId: DEMO_KEY_ID,
    keySecret: DEMO_KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
    port: 0,
    ...overrides,
  });
}

export function basicAuth(keyId: string, keySecret: string): string {
  return `Basic ${Buffer.from(`${keyId}:${keySecret}`).toString('base64')}`;
}

export const DEMO_AUTH = basicAuth(DEMO_KEY_ID, DEMO_KEY_SECRET);

export const listPath = (orgId: string = DEMO_ORG_ID): string => `/v1/organizations/${orgId}/services`;
export const servicePath = (serviceId: string, orgId: string = DEMO_ORG_ID): string =>
  `/v1/organizations/${orgId}/services/${serviceId}`;

export interface CallOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent verbatim, for bodies that are not valid JSON. */
  rawBody?: string;
  /** The Authorization header; the demo key unless given, none if null. */
  auth?: string | null;
  query?: URLSearchParams;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function call(
  simulator: CloudSimulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  const auth = options.auth === undefined ? DEMO_AUTH : options.auth;
  if (auth !== null) headers['authorization'] = auth;
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const query = options.query ? `?${options.query.toString()}` : '';
  const response = await fetch(`${simulator.url}${path}${query}`, { method, headers, body: payload });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

export interface SuccessEnvelope<T> {
  status: 200;
  requestId: string;
  result: T;
}

export interface ErrorEnvelope {
  status: number;
  error: string;
  requestId: string;
}

/** Asserts the success envelope the real API sends, and returns its result. */
export function expectSuccess<T>(response: ApiResponse): T {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  const body = response.body as SuccessEnvelope<T>;
  expect(body.status).toBe(200);
  expect(body.requestId).toMatch(UUID_V4);
  return body.result;
}

/** Asserts the error envelope `{status, error: "CODE: ...", requestId}` and returns the message. */
export function expectError(response: ApiResponse, status: number, code: string): string {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json');
  const body = response.body as ErrorEnvelope;
  expect(Object.keys(body).sort()).toEqual(['error', 'requestId', 'status']);
  expect(body.status).toBe(status);
  expect(body.requestId).toMatch(UUID_V4);
  expect(body.error.startsWith(`${code}: `)).toBe(true);
  return body.error;
}

export async function listServices(simulator: CloudSimulator, filters: string[] = []): Promise<ServiceRecordLike[]> {
  const query = new URLSearchParams(filters.map((filter) => ['filter', filter]));
  return expectSuccess<ServiceRecordLike[]>(await call(simulator, 'GET', listPath(), { query }));
}

export async function listNames(simulator: CloudSimulator, filters: string[] = []): Promise<string[]> {
  return (await listServices(simulator, filters)).map((service) => service.name);
}

export function patch(simulator: CloudSimulator, serviceId: string, body: unknown): Promise<ApiResponse> {
  return call(simulator, 'PATCH', servicePath(serviceId), { body });
}

/** PATCHes and asserts success; returns the updated record from the response. */
export async function patchOk(simulator: CloudSimulator, serviceId: string, body: unknown): Promise<ServiceRecordLike> {
  return expectSuccess<ServiceRecordLike>(await patch(simulator, serviceId, body));
}

/** A GET whose answer is text (the Prometheus endpoint), with the demo key. */
export async function getText(
  simulator: CloudSimulator,
  path: string,
  query?: URLSearchParams,
): Promise<{ status: number; contentType: string | null; text: string }> {
  const suffix = query ? `?${query.toString()}` : '';
  const response = await fetch(`${simulator.url}${path}${suffix}`, { headers: { authorization: DEMO_AUTH } });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/**
 * For a test file: a function that starts the demo simulator on a clock the test can move (at
 * `defaultAt` unless given one), with transitions that settle at once, and closes it after each test.
 */
export function demoStarter(defaultAt: number): (clock?: { at: number }) => Promise<CloudSimulator> {
  let current: CloudSimulator | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return async (clock = { at: defaultAt }) => {
    current = await startDemo({ now: () => clock.at, transitionMs: 0 });
    return current;
  };
}

/**
 * DELETEs `path` and asserts the documented answer (200, an envelope without a result); then a
 * GET and a second DELETE of the same path both answer 404.
 */
export async function expectDeletedOnce(simulator: CloudSimulator, path: string): Promise<void> {
  const deleted = await call(simulator, 'DELETE', path);
  expect(deleted.status).toBe(200);
  expect(Object.keys(deleted.body as object).sort()).toStrictEqual(['requestId', 'status']);
  expectError(await call(simulator, 'GET', path), 404, 'NOT_FOUND');
  expectError(await call(simulator, 'DELETE', path), 404, 'NOT_FOUND');
}
