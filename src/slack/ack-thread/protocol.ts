/**
 * Messages between the main thread and the acknowledging thread (thread.js). Plain data only:
 * they cross by structured clone.
 */
import type { OpsAnswer } from '../../http/ops-routes.js';
import type { ReadyAnswerOffer } from './ready-answers.js';

export interface ThreadSettings {
  signingSecret: string;
  port: number;
  /** Interface to listen on; every interface when undefined. */
  host: string | undefined;
  /** Where Slack posts commands and interactions (Bolt's default endpoint). */
  eventsPath: string;
  /** The operator's routes the main thread answers (probes, metrics), by method and path. */
  routes: Array<{ method: string[]; path: string }>;
  /** A request waiting for its listener's ack and not answered by then gets Bolt's 404 (Slack shows an error). */
  unhandledTimeoutMs: number;
  /**
   * Requests handed over and not yet finished by the main thread, past which commands and clicks
   * are answered with `busyText` instead of queued (a flood must not grow memory without bound).
   */
  maxPending: number;
  /**
   * One Int32 the main thread adds 1 to (Atomics.add) whenever a handed-over request finishes; the
   * thread compares it with its own count of requests handed over (both wrap at 2^32 alike). Shared
   * memory rather than a message per request: no copy, no wake-up of the thread, and always current.
   */
  finished: SharedArrayBuffer;
  /** One Int32, the generation of ready answers (ready-answers.ts): an offer of another is not given. */
  readyGeneration: SharedArrayBuffer;
  /** Ready answers kept at most, and their bodies' and keys' bytes at most: the oldest give way. */
  readyAnswersMax: number;
  readyAnswersMaxBytes: number;
  busyText: string;
  /** The largest body read (413 past it); see BODY_LIMIT_BYTES in receiver.ts. */
  bodyLimit: number;
  /** Bytes of bodies being read at once, across all connections, past which requests get 503. */
  bodyBudget: number;
  /** Open connections past which new ones are closed at once. */
  maxConnections: number;
  /** A request must have sent its headers within this, and all of itself within requestTimeoutMs. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** A request Slack signed, as the main thread's App receives it. */
export interface ThreadEvent {
  type: 'event';
  /** 0 when the thread has acknowledged already; otherwise the id the main thread's ack answers. */
  id: number;
  body: Record<string, unknown>;
  retryNum: number | undefined;
  retryReason: string | undefined;
  /** The acknowledgement's latency, when the thread has acknowledged already. */
  ackSeconds: number | undefined;
}

export type FromThread =
  | { type: 'listening'; port: number }
  /** The socket could not listen: Node's error code (EADDRINUSE…) and message. */
  | { type: 'failed'; code: string | undefined; message: string }
  | ThreadEvent
  /** A listener's acknowledgement the request waited for has gone out. */
  | { type: 'acked'; seconds: number }
  /** A probe or /metrics; `authorization` is the request's header, for a route that asks for a token. */
  | { type: 'route'; id: number; method: string; path: string; authorization: string | undefined }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; message: string }
  /**
   * Commands the thread answered with a ready answer since its last such report (sent at most
   * once a second): how many, by metrics label, and each acknowledgement's latency.
   */
  | { type: 'answered-ready'; counts: Record<string, number>; ackSeconds: number[] }
  | { type: 'stopped' };

export type ToThread =
  /** The listener's ack of a request the thread waits on; `status` 500 when the listener failed first. */
  | { type: 'ack'; id: number; response: unknown; status?: number }
  | { type: 'route-answer'; id: number; answer: OpsAnswer }
  /** An answer the thread may give again by itself (ready-answers.ts). */
  | ({ type: 'ready-answer' } & ReadyAnswerOffer)
  | { type: 'stop' };
