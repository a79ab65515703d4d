/**
 * HTTP mode: Bolt's own HTTPReceiver, on the main thread, behind a door of our own. Bolt verifies
 * each request's signature, parses it, and sends whatever a listener passes to `ack()` as the HTTP
 * response: a slash command's message, an options list, a `response_action`, a submission's inline
 * errors. The door answers what anyone can send without the signing secret before Bolt reads a
 * byte of its body, and keeps the socket's limits (SOCKET_LIMITS); the operator's routes (probes,
 * /metrics) share the port.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTPReceiver, type App, type Logger, type Receiver } from '@slack/bolt';
import { listenProblem } from '../http/listen-problem.js';
import { answerRoute, type OpsRoute } from '../http/ops-routes.js';
import { signatureHeadersProblem } from './slack-signature.js';

export interface SlackHttpOptions {
  signingSecret: string;
  port: number;
  host?: string | undefined;
  logger: Logger;
  routes: OpsRoute[];
  /** The socket's limits; the defaults below unless given (tests shorten the timeouts). */
  limits?: Partial<SocketLimits>;
}

export interface SocketLimits {
  bodyLimit: number;
  bodyBudget: number;
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/**
 * The socket's limits. The largest body Slack sends this bot is a `view_submission` of the edit
 * modal or a `block_actions` click on an approval message: Slack puts the whole view or message
 * in the payload, and caps a view at 100 blocks and a message at 50 blocks of at most 3,000
 * characters each. That is under 1 MiB form-encoded; Bolt's default of 4 MiB held four times what
 * any real request needs, for anyone who sent it. Bodies being read at once share 16 MiB: a flood
 * of bodies with made-up signatures gets 503s rather than the bot's memory. Slack gives up on a
 * request after 3 s, so 5 s for the headers and 10 s for the whole request lose nothing real;
 * Slack's own concurrency (and the benchmark's 256 connections) stays far below 1,024 connections.
 */
export const SOCKET_LIMITS: SocketLimits = {
  bodyLimit: 1024 * 1024,
  bodyBudget: 16 * 1024 * 1024,
  maxConnections: 1_024,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
};

const EVENTS_PATH = '/slack/events';
/**
 * Slack's `ssl_check` (`token=…&ssl_check=1`) may come unsigned, as Bolt allows: an unsigned form
 * this small goes on to Bolt, which answers it and refuses anything else unsigned.
 */
const SSL_CHECK_MAX_BYTES = 200;
/** Refusals are logged at most once per 10 s, with a count of the others: a flood must not flood the log. */
const REFUSAL_LOG_EVERY_MS = 10_000;

export class SlackHttpReceiver implements Receiver {
  private readonly bolt: HTTPReceiver;
  private readonly limits: SocketLimits;
  private server: Server | undefined;
  /** Bytes of bodies being read now, across connections (declared, or the limit when undeclared). */
  private reading = 0;
  private refusalLoggedAt = Number.NEGATIVE_INFINITY;
  private refusalsUnlogged = 0;

  constructor(private readonly options: SlackHttpOptions) {
    this.limits = { ...SOCKET_LIMITS, ...options.limits };
    this.bolt = new HTTPReceiver({
      signingSecret: options.signingSecret,
      logger: options.logger,
      endpoints: [EVENTS_PATH],
      // Acknowledge as soon as a listener calls ack(): the work after it must not hold Slack's 3 s.
      processBeforeResponse: false,
      bodyLimit: this.limits.bodyLimit,
    });
  }

  init(app: App): void {
    this.bolt.init(app);
  }

  /** Starts listening; resolves with the port bound. */
  async start(): Promise<number> {
    const server = createServer(
      {
        headersTimeout: this.limits.headersTimeoutMs,
        requestTimeout: this.limits.requestTimeoutMs,
        // How often the two timeouts above are enforced (Node's default is every 30 s).
        connectionsCheckingInterval: Math.min(1_000, this.limits.headersTimeoutMs),
      },
      (req, res) => this.serve(req, res),
    );
    server.maxConnections = this.limits.maxConnections;
    const { port, host } = this.options;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(new Error(listenProblem(error, host ?? 'every interface', port), { cause: error })),
      );
      server.listen(host === undefined ? { port } : { port, host }, () => resolve());
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? '';
    if (path === EVENTS_PATH && method === 'POST') return this.receive(req, res);
    if (this.options.routes.some((route) => route.path === path && route.method.includes(method))) {
      void answerRoute(this.options.routes, method, path, { authorization: req.headers.authorization }).then(
        (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.contentType, ...answer.headers });
          res.end(answer.body);
        },
      );
      return;
    }
    refuse(req, res, 404);
  }

  /** What anyone can send is answered here, unread; what may be Slack's goes on to Bolt. */
  private receive(req: IncomingMessage, res: ServerResponse): void {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    const signed = signatureHeadersProblem(req.headers, Math.floor(Date.now() / 1000));
    if (!signed.ok) {
      const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      if (!form || !(declared <= SSL_CHECK_MAX_BYTES)) {
        this.logRefusal(`Refused a request: ${signed.problem}.`);
        return refuse(req, res, 401);
      }
    }
    if (declared > this.limits.bodyLimit) {
      this.logRefusal(`Refused a request body of ${declared} bytes: the limit is ${this.limits.bodyLimit} bytes.`);
      return refuse(req, res, 413);
    }
    // A body without a declared length may grow to the limit (Bolt stops reading it there).
    const reserved = Number.isFinite(declared) ? declared : this.limits.bodyLimit;
    if (this.reading + reserved > this.limits.bodyBudget) {
      this.logRefusal('Refused a request: too many request bodies are being received at once.');
      return refuse(req, res, 503);
    }
    this.reading += reserved;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.reading -= reserved;
    };
    req.once('end', release);
    req.once('close', release);
    // Bolt answers a body past its limit with 413 but would read on: the rest is not taken in.
    res.once('finish', () => {
      if (!req.complete) req.destroy();
    });
    this.bolt.requestListener(req, res);
  }

  private logRefusal(sentence: string): void {
    const now = performance.now();
    if (now - this.refusalLoggedAt < REFUSAL_LOG_EVERY_MS) {
      this.refusalsUnlogged += 1;
      return;
    }
    const others =
      this.refusalsUnlogged === 0 ? '' : ` (${this.refusalsUnlogged} more refused since the last such line)`;
    this.refusalLoggedAt = now;
    this.refusalsUnlogged = 0;
    this.options.logger.warn(`${sentence}${others}`);
  }
}

/**
 * A request whose body is not read (or not read to the end) is answered and its connection
 * closed, so what the sender still has to send is never taken in.
 */
function refuse(req: IncomingMessage, res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status, { connection: 'close' });
  res.end();
  if (!req.complete) res.once('finish', () => req.destroy());
}
