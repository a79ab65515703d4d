/**
 * Bolt's receiver for HTTP mode, with the socket on a thread of its own (thread.js): that thread
 * verifies and acknowledges each request and passes it here, where the App and its listeners
 * run. The listeners still call `ack()`: a request that waits for it (a submission, an external
 * select's options: thread.js, acknowledgedAtOnce) is answered with its content; for a command the
 * thread has acknowledged already, content (the draining sentence) goes to the command's
 * response_url instead, which the person sees the same way.
 */
import { Worker } from 'node:worker_threads';
import type { App, Logger, Receiver } from '@slack/bolt';
import { request } from 'undici';
import { z } from 'zod';
import { messageOf } from '../../core/render/errors.js';
import { listenProblem } from '../../http/listen-problem.js';
import { answerRoute, type OpsRoute } from '../../http/ops-routes.js';
import type { FromThread, ThreadEvent, ThreadSettings, ToThread } from './protocol.js';
import type { ReadyAnswers } from './ready-answers.js';

export interface AckThreadOptions {
  signingSecret: string;
  port: number;
  host?: string | undefined;
  logger: Logger;
  routes: OpsRoute[];
  /** Each acknowledgement's latency, in seconds. */
  onAck?: (seconds: number) => void;
  /** Requests handed over and not finished, past which new ones are refused with a sentence. */
  maxPending?: number;
  /** The socket's limits; the defaults below unless given (tests shorten the timeouts). */
  limits?: Partial<SocketLimits>;
  /** Answers the thread may give again by itself; without them every command reaches the App. */
  readyAnswers?: ReadyAnswers;
  /** Commands the thread answered with a ready answer, by metrics label, as it reports them. */
  onReadyAnswers?: (counts: Record<string, number>) => void;
}

export interface SocketLimits {
  bodyLimit: number;
  bodyBudget: number;
  maxConnections: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  readyAnswersMax: number;
  readyAnswersMaxBytes: number;
}

/**
 * The socket's limits. The largest body Slack sends this bot is a `view_submission` of the edit
 * modal or a `block_actions` click on an approval message: Slack puts the whole view or message
 * in the payload, and caps a view at 100 blocks and a message at 50 blocks of at most 3,000
 * characters each. That is under 1 MiB form-encoded; Bolt's default of 4 MiB held four times what
 * any real request needs, for anyone who sent it. Bodies being read at once share 32 MiB: a flood
 * of bodies with made-up signatures gets 503s rather than the bot's memory. Slack gives up on a
 * request after 3 s, so 5 s for the headers and 10 s for the whole request lose nothing real;
 * Slack's own concurrency (and the benchmark's 256 connections) stays far below 1,024 connections.
 * Ready answers (ready-answers.ts): the few commands a team repeats in a flood, for a few hundred
 * channels, in at most 8 MiB (a `list` of a few dozen services is 10–20 KB).
 */
export const SOCKET_LIMITS: SocketLimits = {
  bodyLimit: 1024 * 1024,
  bodyBudget: 16 * 1024 * 1024,
  maxConnections: 1_024,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  readyAnswersMax: 512,
  readyAnswersMaxBytes: 8 * 1024 * 1024,
};

/** What the thread hands over, checked again on this side of the boundary. */
const ThreadEventSchema = z.object({
  type: z.literal('event'),
  id: z.number().int().nonnegative(),
  // Checked, not copied: the listeners parse the fields they use (a z.record copied every body).
  body: z.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  ),
  retryNum: z.number().optional(),
  retryReason: z.string().optional(),
  ackSeconds: z.number().optional(),
});

const EVENTS_PATH = '/slack/events';
/** As Bolt's HTTPReceiver: Slack gives up at 3 s. */
const UNHANDLED_TIMEOUT_MS = 3_001;
const THREAD_FILE = new URL('./thread.js', import.meta.url);
/** Far above what a team types (hundreds a second for seconds on end), far below a memory problem. */
const MAX_PENDING = 2_000;
export const BUSY_TEXT =
  ':hourglass_flowing_sand: The bot has more requests waiting than it takes at once. Nothing was done; try again in a few seconds.';

export class AckThreadReceiver implements Receiver {
  private app: App | undefined;
  private thread: Worker | undefined;
  private stopping = false;
  private boundPort: number | undefined;
  /** Each thread's counter of handed-over requests finished (ThreadSettings.finished), by thread. */
  private readonly finishedCounters = new WeakMap<Worker, Int32Array>();

  constructor(private readonly options: AckThreadOptions) {
    options.readyAnswers?.attach((offer) => {
      if (this.thread) this.send(this.thread, { type: 'ready-answer', ...offer });
    });
  }

  /** The thread serving now (tests stop it to see it started again). */
  get serving(): Worker | undefined {
    return this.thread;
  }

  init(app: App): void {
    this.app = app;
  }

  /** Starts the thread; resolves with the port it listens on. */
  async start(): Promise<number> {
    this.stopping = false;
    this.boundPort = await this.startThread(this.options.port);
    return this.boundPort;
  }

  async stop(): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    this.stopping = true;
    this.thread = undefined;
    const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
    this.send(thread, { type: 'stop' });
    await exited;
  }

  private startThread(port: number): Promise<number> {
    const finished = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
    const settings: ThreadSettings = {
      signingSecret: this.options.signingSecret,
      port,
      host: this.options.host,
      eventsPath: EVENTS_PATH,
      routes: this.options.routes.map(({ method, path }) => ({ method, path })),
      unhandledTimeoutMs: UNHANDLED_TIMEOUT_MS,
      maxPending: this.options.maxPending ?? MAX_PENDING,
      finished,
      // Without ready answers nothing is ever offered; the thread still reads a generation.
      readyGeneration: this.options.readyAnswers?.shared ?? new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT),
      busyText: BUSY_TEXT,
      ...SOCKET_LIMITS,
      ...this.options.limits,
    };
    // No execArgv: a loader the main thread runs under (tsx) would cost the thread its fast start.
    const thread = new Worker(THREAD_FILE, { workerData: settings, execArgv: [] });
    this.thread = thread;
    this.finishedCounters.set(thread, new Int32Array(finished));
    return new Promise<number>((resolve, reject) => {
      thread.on('message', (message: FromThread) => {
        if (message.type === 'listening') resolve(message.port);
        else if (message.type === 'failed')
          reject(new Error(listenProblem(message, this.options.host ?? 'every interface', port)));
        else this.onMessage(thread, message);
      });
      thread.on('error', (error) => {
        this.options.logger.error(`the acknowledging thread failed: ${messageOf(error)}`);
        reject(error);
      });
      thread.on('exit', (code) => this.onExit(thread, code));
    });
  }

  /** A thread that dies while the bot runs is started again on the same port. */
  private onExit(thread: Worker, code: number): void {
    if (this.stopping || this.thread !== thread || this.boundPort === undefined) return;
    this.options.logger.error(
      `the acknowledging thread exited (code ${code}); starting it again on port ${this.boundPort}`,
    );
    this.startThread(this.boundPort).catch((error: unknown) =>
      this.options.logger.error(`restarting the acknowledging thread: ${messageOf(error)}`),
    );
  }

  private onMessage(thread: Worker, message: Exclude<FromThread, { type: 'listening' | 'failed' }>): void {
    switch (message.type) {
      case 'event': {
        const event = ThreadEventSchema.safeParse(message);
        if (event.success) return this.dispatch(thread, message);
        this.options.logger.warn('The acknowledging thread handed over a request that is not an object of fields.');
        if (message.id !== 0) this.send(thread, { type: 'ack', id: message.id, response: undefined, status: 400 });
        return this.finish(thread);
      }
      case 'acked':
        return this.options.onAck?.(message.seconds);
      case 'answered-ready':
        for (const seconds of message.ackSeconds) this.options.onAck?.(seconds);
        return this.options.onReadyAnswers?.(message.counts);
      case 'route':
        void answerRoute(this.options.routes, message.method, message.path, {
          authorization: message.authorization,
        }).then((answer) => this.send(thread, { type: 'route-answer', id: message.id, answer }));
        return;
      case 'log':
        return this.options.logger[message.level](message.message);
      case 'stopped':
        return;
    }
  }

  private dispatch(thread: Worker, event: ThreadEvent): void {
    const app = this.app;
    if (!app) return;
    if (event.ackSeconds !== undefined) this.options.onAck?.(event.ackSeconds);
    let acked = event.id === 0;
    const ack =
      event.id === 0
        ? this.lateAck(event.body)
        : (response?: unknown) => {
            acked = true;
            this.send(thread, { type: 'ack', id: event.id, response });
            return Promise.resolve();
          };
    app
      .processEvent({
        body: event.body,
        ack,
        ...(event.retryNum === undefined ? {} : { retryNum: event.retryNum }),
        ...(event.retryReason === undefined ? {} : { retryReason: event.retryReason }),
        customProperties: {},
      })
      .then(() => {
        // No listener took a request that waits for one (a kind nothing here answers): it gets
        // Bolt's 404 now, not after the 3 s Bolt's HTTPReceiver waits in case an ack comes late.
        if (acked) return;
        this.options.logger.warn(`No listener acknowledged a ${String(event.body.type)} request; answered 404.`);
        this.send(thread, { type: 'ack', id: event.id, response: undefined, status: 404 });
      })
      .catch((error: unknown) => {
        this.options.logger.error(`An unhandled error occurred while Bolt processed an event: ${messageOf(error)}`);
        // As Bolt's HTTPReceiver: a request nobody acknowledged before failing gets a 500.
        if (!acked) this.send(thread, { type: 'ack', id: event.id, response: undefined, status: 500 });
      })
      .finally(() => this.finish(thread));
  }

  /** Counts a handed-over request as finished, where the thread reads it (no message, no wake-up). */
  private finish(thread: Worker): void {
    const counter = this.finishedCounters.get(thread);
    if (counter) Atomics.add(counter, 0, 1);
  }

  /**
   * An ack after the thread's empty one: a slash command's content goes to its response_url,
   * which the person sees the same way. Content for any other kind cannot reach Slack any more:
   * the ack fails (the listener's error reaches app.error and the log), so a listener that answers
   * in its acknowledgement a kind the thread acknowledges at once (thread.js, acknowledgedAtOnce)
   * fails its tests instead of being dropped in silence.
   */
  private lateAck(body: Record<string, unknown>) {
    return async (response?: unknown): Promise<void> => {
      if (response === undefined) return;
      const responseUrl = body.response_url;
      if (typeof body.command !== 'string' || typeof responseUrl !== 'string')
        throw new Error(
          `An acknowledgement with content for a ${String(body.type)} request cannot reach Slack: the acknowledging thread answered it at once (thread.js, acknowledgedAtOnce).`,
        );
      const message = typeof response === 'string' ? { text: response } : response;
      try {
        const answer = await request(responseUrl, {
          method: 'POST',
          body: JSON.stringify(message),
          headers: { 'content-type': 'application/json' },
        });
        await answer.body.dump();
      } catch (error) {
        this.options.logger.warn(`answering a command through its response_url: ${messageOf(error)}`);
      }
    };
  }

  private send(thread: Worker, message: ToThread): void {
    thread.postMessage(message);
  }
}
