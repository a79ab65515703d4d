/**
 * The Bolt app: HTTP mode (POST /slack/events on PORT) or Socket Mode when an app token is set;
 * listeners are registered by listeners/index.ts. The operator's endpoints (/healthz, /livez,
 * /readyz, /metrics unless it has a port of its own) share PORT with Slack's requests in HTTP
 * mode and get a small server of their own on PORT in Socket Mode. In HTTP mode a thread of its
 * own verifies Slack's signatures (401 otherwise) and acknowledges (ack-thread/); in both modes
 * acks-first.ts hands out post-ack work in arrival order, a bounded number at a time.
 */
import { App, SocketModeReceiver, type Logger, type Receiver } from '@slack/bolt';
import type { Registry } from 'prom-client';
import { messageOf } from '../core/render/errors.js';
import type { KeyState } from '../cloud/key-check.js';
import { metricsRoute, probeRoutes, startOpsServer, type OpsServer } from '../http/ops-routes.js';
import type { Modals } from '../ports/index.js';
import type { MetadataSeal } from './sealed-metadata.js';
import { slackErrorCode, type ApiErrorListener } from './messenger.js';
import { serveAcksFirst, WorkQueue } from './acks-first.js';
import { AckThreadReceiver } from './ack-thread/receiver.js';
import type { ReadyAnswers } from './ack-thread/ready-answers.js';

export interface SlackAppOptions {
  botToken: string;
  signingSecret: string;
  appToken?: string | undefined;
  apiUrl: string;
  /** HTTP port for Slack's requests and the probes (in Socket Mode, the probes only); 0 = any free port. */
  port: number;
  /** Interface to listen on; every interface when unset (the playground passes loopback). */
  host?: string | undefined;
  logger: Logger;
  /** Whether the store answers (/healthz, /readyz). */
  storeAnswers: () => Promise<boolean>;
  /** Whether ClickHouse Cloud accepts the API key (/readyz). */
  cloudKey?: () => KeyState;
  /** Each organization's key, by name (/readyz with ORGANIZATIONS_FILE). */
  cloudKeys?: () => Record<string, KeyState>;
  /** Served at /metrics on `port`; leave out when metrics are off or have a port of their own. */
  metrics?: Registry | undefined;
  /** With it, /metrics answers only `Authorization: Bearer <token>` (METRICS_TOKEN). */
  metricsToken?: string | undefined;
  /** Each acknowledgement's latency, in seconds. */
  onAck?: (seconds: number) => void;
  /** HTTP mode: answers the acknowledging thread may give again by itself (ready-answers.ts). */
  readyAnswers?: ReadyAnswers;
  /** Commands answered that way, by metrics label. */
  onReadyAnswers?: (counts: Record<string, number>) => void;
  /** Socket Mode client tuning (tests shorten the reconnect pause, which is this times the failures). */
  socketClientPingTimeoutMs?: number;
}

export interface SlackBot {
  app: App;
  /** Starts listening; resolves with the HTTP port actually bound (Slack's requests, or in Socket Mode the probes). */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** In Socket Mode, whether the connection to Slack is open now; undefined in HTTP mode. */
  socketOpen: (() => boolean) | undefined;
}

export function createSlackApp(options: SlackAppOptions): SlackBot {
  const { appToken } = options;
  const socket = appToken ? socketModeReceiver(appToken, options) : undefined;
  const routes = [
    ...probeRoutes({
      storeAnswers: options.storeAnswers,
      ...(socket ? { socketOpen: socket.isOpen } : {}),
      ...(options.cloudKey ? { cloudKey: options.cloudKey } : {}),
      ...(options.cloudKeys ? { cloudKeys: options.cloudKeys } : {}),
    }),
    ...(options.metrics ? [metricsRoute(options.metrics, options.metricsToken)] : []),
  ];
  const http = socket
    ? undefined
    : new AckThreadReceiver({
        signingSecret: options.signingSecret,
        port: options.port,
        host: options.host,
        logger: options.logger,
        routes,
        ...(options.onAck ? { onAck: options.onAck } : {}),
        ...(options.readyAnswers ? { readyAnswers: options.readyAnswers } : {}),
        ...(options.onReadyAnswers ? { onReadyAnswers: options.onReadyAnswers } : {}),
      });
  const receiver = (socket?.receiver ?? http) as Receiver;
  let opsServer: OpsServer | undefined;
  const app = new App({
    token: options.botToken,
    receiver,
    logger: options.logger,
    // Bolt resets the logger's level to its own default unless told.
    logLevel: options.logger.getLevel(),
    // Initialize in start(): a bad token or an unreachable Slack then fails start with a sentence,
    // instead of an unhandled rejection from the constructor.
    deferInitialization: true,
    // Bolt's default conversation store keeps per-conversation state we never use; it costs CPU on every request.
    convoStore: false,
    clientOptions: {
      slackApiUrl: options.apiUrl,
      retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 2000 },
      // A 429 comes back to us with its Retry-After (slack/pacing.ts waits it for that call or
      // channel alone), instead of the client pausing every call, updates included, meanwhile.
      rejectRateLimitedCalls: true,
    },
  });
  // Over HTTP the thread times the acks; in Socket Mode they happen here.
  serveAcksFirst(app, new WorkQueue(), socket ? options.onAck : undefined);
  app.error((error) => {
    options.logger.error('unhandled error in a listener:', messageOf(error));
    return Promise.resolve();
  });
  return {
    app,
    socketOpen: socket?.isOpen,
    start: async () => {
      try {
        await app.init();
      } catch (error) {
        throw new Error(slackStartProblem(error, options.apiUrl), { cause: error });
      }
      if (http) return http.start();
      opsServer = await startOpsServer(options.port, routes, options.host);
      await socket?.receiver.start();
      return opsServer.port;
    },
    stop: async () => {
      await receiver.stop?.();
      await opsServer?.close();
    },
  };
}

/**
 * Why auth.test at start failed, in words that point at the fix: Slack unreachable (network,
 * proxy, SLACK_API_URL) is not the same as a token Slack refused.
 */
export function slackStartProblem(error: unknown, apiUrl: string): string {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  if (code === 'slack_webapi_request_error') {
    const original: unknown = Reflect.get(error as object, 'original');
    const cause: unknown =
      typeof original === 'object' && original !== null ? (Reflect.get(original, 'cause') ?? original) : undefined;
    const reason =
      typeof cause === 'object' && cause !== null
        ? String(Reflect.get(cause, 'code') ?? Reflect.get(cause, 'message') ?? '')
        : '';
    return `Could not reach Slack at ${apiUrl} (${reason || 'no answer'}): check the network, any proxy, and SLACK_API_URL. SLACK_BOT_TOKEN has not been checked yet.`;
  }
  if (code === 'slack_webapi_http_error') {
    const status: unknown = Reflect.get(error as object, 'statusCode');
    return `Slack at ${apiUrl} answered HTTP ${String(status)} to auth.test: check SLACK_API_URL.`;
  }
  return `Slack refused SLACK_BOT_TOKEN (auth.test at ${apiUrl} answered ${slackErrorCode(error)}): check the bot token (xoxb-…) and that the app is installed in the workspace.`;
}

/**
 * Socket Mode: the client asks apps.connections.open at SLACK_API_URL (so it can be pointed at a
 * stand-in) and reconnects by itself after a `disconnect` message or a dropped connection.
 */
function socketModeReceiver(appToken: string, options: SlackAppOptions) {
  const receiver = new SocketModeReceiver({
    appToken,
    logger: options.logger,
    installerOptions: { clientOptions: { slackApiUrl: options.apiUrl } },
    ...(options.socketClientPingTimeoutMs ? { clientPingTimeout: options.socketClientPingTimeoutMs } : {}),
  });
  let open = false;
  receiver.client.on('connected', () => {
    open = true;
  });
  for (const state of ['disconnecting', 'reconnecting', 'disconnected', 'close']) {
    receiver.client.on(state, () => {
      open = false;
    });
  }
  return { receiver, isOpen: () => open };
}

/** Every view goes out with its private_metadata sealed (sealed-metadata.ts): its submission is checked against it. */
export function boltModals(app: App, seal: MetadataSeal, onApiError: ApiErrorListener = () => undefined): Modals {
  // Errors keep their Web API shape for the callers; the listener only hears of them.
  const heard = async <T>(method: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      onApiError(method, slackErrorCode(error));
      throw error;
    }
  };
  return {
    async open(triggerId, view) {
      const result = await heard('views.open', () =>
        app.client.views.open({ trigger_id: triggerId, view: seal.seal(view) }),
      );
      const id = result.view?.id;
      if (!id) throw new Error('views.open returned no view id');
      return { viewId: id, ...(result.view?.hash ? { hash: result.view.hash } : {}) };
    },
    async update(viewId, view, hash) {
      await heard('views.update', () =>
        app.client.views.update({ view_id: viewId, view: seal.seal(view), ...(hash ? { hash } : {}) }),
      );
    },
  };
}
