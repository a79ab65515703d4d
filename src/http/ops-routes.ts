/**
 * The operator's HTTP endpoints: probes and metrics. In HTTP mode they share PORT with
 * POST /slack/events (the acknowledging thread owns that socket and asks the main thread for
 * these answers, so /livez still means the main event loop answers); in Socket Mode, where Slack needs no port, they get
 * a small server of their own on PORT; METRICS_PORT moves /metrics to a listener of its own.
 *
 * - /livez: the process and its event loop answer. For a liveness probe: a Redis outage must not
 *   get the bot restarted (it answers people with a sentence meanwhile and recovers by itself).
 * - /readyz: the store answers, ClickHouse Cloud has not refused the API key (with several
 *   organizations: not every organization's key; each is listed) and, in Socket Mode, the
 *   connection to Slack is open. For a readiness probe.
 * - /healthz: unchanged: 200 when the store answers, 503 otherwise (the Dockerfile's HEALTHCHECK).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { KeyState } from '../cloud/key-check.js';
import { listenProblem } from './listen-problem.js';

export interface OpsChecks {
  storeAnswers(): Promise<boolean>;
  /** Undefined in HTTP mode (no connection to hold); in Socket Mode, whether it is open now. */
  socketOpen?: () => boolean;
  /** Whether ClickHouse Cloud accepts the API key; a refused key makes the bot not ready. */
  cloudKey?: () => KeyState;
  /**
   * With several organizations (ORGANIZATIONS_FILE), each one's key by name: the bot is ready while
   * any of them is not refused (a channel of another organization is still served).
   */
  cloudKeys?: () => Record<string, KeyState>;
}

/** What a route answers, as plain data: the acknowledging thread carries it across to its socket. */
export interface OpsAnswer {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** What a route may look at of the request. */
export interface OpsRequest {
  authorization: string | undefined;
}

export interface OpsRoute {
  path: string;
  method: string[];
  answer: (request: OpsRequest) => Promise<OpsAnswer>;
}

export function probeRoutes(checks: OpsChecks): OpsRoute[] {
  const storeAnswers = () => checks.storeAnswers().catch(() => false);
  return [
    {
      path: '/healthz',
      method: ['GET'],
      answer: async () => {
        const ok = await storeAnswers();
        return json(ok ? 200 : 503, { ok, store: ok ? 'ok' : 'unreachable' });
      },
    },
    { path: '/livez', method: ['GET'], answer: () => Promise.resolve(json(200, { ok: true })) },
    {
      path: '/readyz',
      method: ['GET'],
      answer: async () => {
        const store = await storeAnswers();
        const socket = checks.socketOpen?.();
        const key = checks.cloudKey?.();
        const keys = checks.cloudKeys?.();
        const several = keys !== undefined && Object.keys(keys).length > 1;
        const refused = several ? Object.values(keys).every((state) => state === 'refused') : key === 'refused';
        const ok = store && socket !== false && !refused;
        return json(ok ? 200 : 503, {
          ok,
          store: store ? 'ok' : 'unreachable',
          ...(socket === undefined ? {} : { slack: socket ? 'connected' : 'disconnected' }),
          ...(key === undefined ? {} : { clickhouseKey: key }),
          ...(several ? { clickhouseKeys: keys } : {}),
        });
      },
    },
  ];
}

/**
 * GET /metrics; with a `token` (METRICS_TOKEN), only for `Authorization: Bearer <token>` (401
 * otherwise, compared in constant time).
 */
export function metricsRoute(registry: Registry, token?: string): OpsRoute {
  return {
    path: '/metrics',
    method: ['GET'],
    answer: async (request) => {
      if (token !== undefined && !bearerMatches(request.authorization, token))
        return {
          ...json(401, { ok: false, error: 'GET /metrics needs the header Authorization: Bearer <METRICS_TOKEN>' }),
          headers: { 'www-authenticate': 'Bearer' },
        };
      return registry.metrics().then(
        (text): OpsAnswer => ({ status: 200, contentType: registry.contentType, body: text }),
        (error: unknown) => json(500, { ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
    },
  };
}

/** Hashes first, so the comparison takes as long whatever the lengths. */
function bearerMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(authorization?.trim() ?? '')?.[1] ?? '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/** The answer of the route for `method` and `path`; a 404 sentence when there is none. */
export function answerRoute(
  routes: OpsRoute[],
  method: string,
  path: string,
  request: OpsRequest = { authorization: undefined },
): Promise<OpsAnswer> {
  const route = routes.find((r) => r.path === path && r.method.includes(method));
  return route ? route.answer(request) : Promise.resolve(json(404, { ok: false, error: `no ${method} ${path} here` }));
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * A plain HTTP server for these routes (Socket Mode's probes, METRICS_PORT), on `host` (every
 * interface when undefined). They read no body: a request is answered from its headers, which
 * must arrive within 5 s; at most 64 connections are open at once.
 */
export async function startOpsServer(port: number, routes: OpsRoute[], host?: string): Promise<OpsServer> {
  const server = createServer(
    { headersTimeout: 5_000, requestTimeout: 10_000, connectionsCheckingInterval: 1_000 },
    (req, res) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const authorization = req.headers.authorization;
      void answerRoute(routes, req.method ?? '', path, { authorization }).then(
        ({ status, contentType, body, headers }) => {
          res.writeHead(status, { 'content-type': contentType, ...headers });
          res.end(body);
        },
      );
    },
  );
  server.maxConnections = 64;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(listenProblem(error, host ?? 'every interface', port), { cause: error })),
    );
    server.listen(host === undefined ? { port } : { port, host }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(status: number, body: unknown): OpsAnswer {
  return { status, contentType: 'application/json', body: JSON.stringify(body) };
}
