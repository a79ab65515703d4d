/**
 * The operator's HTTP endpoints: probes and metrics. In HTTP mode they share PORT with
 * POST /slack/events (as Bolt custom routes); in Socket Mode, where Slack needs no port, they get
 * a small server of their own on PORT; METRICS_PORT moves /metrics to a listener of its own.
 *
 * - /livez: the process and its event loop answer. For a liveness probe: a Redis outage must not
 *   get the bot restarted (it answers people with a sentence meanwhile and recovers by itself).
 * - /readyz: the store answers and, in Socket Mode, the connection to Slack is open. For a
 *   readiness probe.
 * - /healthz: unchanged: 200 when the store answers, 503 otherwise (the Dockerfile's HEALTHCHECK).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface OpsChecks {
  storeAnswers(): Promise<boolean>;
  /** Undefined in HTTP mode (no connection to hold); in Socket Mode, whether it is open now. */
  socketOpen?: () => boolean;
}

export interface OpsRoute {
  path: string;
  method: string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export function probeRoutes(checks: OpsChecks): OpsRoute[] {
  const storeAnswers = () => checks.storeAnswers().catch(() => false);
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => void storeAnswers().then((ok) => json(res, ok ? 200 : 503, { ok, store: ok ? 'ok' : 'unreachable' })),
    },
    { path: '/livez', method: ['GET'], handler: (_req, res) => json(res, 200, { ok: true }) },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req, res) =>
        void storeAnswers().then((store) => {
          const socket = checks.socketOpen?.();
          const ok = store && socket !== false;
          json(res, ok ? 200 : 503, { ok, store: store ? 'ok' : 'unreachable', ...(socket === undefined ? {} : { slack: socket ? 'connected' : 'disconnected' }) });
        }),
    },
  ];
}

export function metricsRoute(registry: Registry): OpsRoute {
  return {
    path: '/metrics',
    method: ['GET'],
    handler: (_req, res) =>
      void registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(text);
        },
        (error: unknown) => json(res, 500, { ok: false, error: error instanceof Error ? error.message : String(error) }),
      ),
  };
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/** A plain HTTP server for these routes (Socket Mode's probes, METRICS_PORT). */
export async function startOpsServer(port: number, routes: OpsRoute[]): Promise<OpsServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = routes.find((r) => r.path === path && r.method.includes(req.method ?? ''));
    if (route) route.handler(req, res);
    else json(res, 404, { ok: false, error: `no ${req.method} ${path} here` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
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

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
