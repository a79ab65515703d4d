/**
 * The Bolt app: HTTP mode (POST /slack/events on PORT) or Socket Mode when an app token is set,
 * and GET /healthz on both; listeners are registered by listeners/index.ts. Bolt verifies Slack's signatures (401 otherwise) and
 * sends the HTTP answer as soon as a listener acks, so work after ack() never delays Slack's 3 s.
 */
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { App, HTTPReceiver, SocketModeReceiver, type Logger, type Receiver } from '@slack/bolt';
import type { Modals } from '../ports/index.js';
import { slackErrorCode } from './messenger.js';

export interface SlackAppOptions {
  botToken: string;
  signingSecret: string;
  appToken?: string | undefined;
  apiUrl: string;
  /** HTTP port for Slack's requests and /healthz (in Socket Mode, for /healthz only); 0 = any free port. */
  port: number;
  logger: Logger;
  /** Answers GET /healthz: true -> 200, false -> 503. */
  healthy: () => Promise<boolean>;
}

export interface SlackBot {
  app: App;
  /** Starts listening; resolves with the HTTP port actually bound (0 in Socket Mode). */
  start(): Promise<number>;
  stop(): Promise<void>;
}

export function createSlackApp(options: SlackAppOptions): SlackBot {
  const customRoutes = [{ path: '/healthz', method: ['GET'], handler: healthHandler(options.healthy) }];
  let receiver: HTTPReceiver | SocketModeReceiver;
  let startReceiver: () => Promise<number>;
  if (options.appToken) {
    const socket = new SocketModeReceiver({ appToken: options.appToken, logger: options.logger, customRoutes, installerOptions: { port: options.port } });
    receiver = socket;
    startReceiver = async () => {
      await socket.start();
      return 0;
    };
  } else {
    const http = new HTTPReceiver({ signingSecret: options.signingSecret, logger: options.logger, customRoutes, processBeforeResponse: false });
    receiver = http;
    startReceiver = async () => {
      const server = await http.start(options.port);
      return (server.address() as AddressInfo).port;
    };
  }
  const app = new App({
    token: options.botToken,
    receiver: receiver as Receiver,
    logger: options.logger,
    // Bolt resets the logger's level to its own default unless told.
    logLevel: options.logger.getLevel(),
    // Initialize in start(): a bad token or an unreachable Slack then fails start with a sentence,
    // instead of an unhandled rejection from the constructor.
    deferInitialization: true,
    // Bolt's default conversation store keeps per-conversation state we never use; it costs CPU on every request.
    convoStore: false,
    clientOptions: { slackApiUrl: options.apiUrl, retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 2000 } },
  });
  app.error(async (error) => {
    options.logger.error('unhandled error in a listener:', error instanceof Error ? error.message : String(error));
  });
  return {
    app,
    start: async () => {
      try {
        await app.init();
      } catch (error) {
        throw new Error(`Slack did not accept SLACK_BOT_TOKEN (auth.test at ${options.apiUrl}): ${slackErrorCode(error)}. Check the token and that Slack is reachable.`);
      }
      return startReceiver();
    },
    stop: () => receiver.stop(),
  };
}

export function boltModals(app: App): Modals {
  return {
    async open(triggerId, view) {
      const result = await app.client.views.open({ trigger_id: triggerId, view });
      const id = result.view?.id;
      if (!id) throw new Error('views.open returned no view id');
      return { viewId: id, ...(result.view?.hash ? { hash: result.view.hash } : {}) };
    },
    async update(viewId, view, hash) {
      await app.client.views.update({ view_id: viewId, view, ...(hash ? { hash } : {}) });
    },
  };
}

function healthHandler(healthy: () => Promise<boolean>) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    healthy()
      .catch(() => false)
      .then((ok) => {
        res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok, store: ok ? 'ok' : 'unreachable' }));
      });
  };
}
