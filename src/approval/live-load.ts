/**
 * The live load a risky change request is filed with (issue 38): read from the service's metrics
 * right before the request is posted, at most once per service every `reuseMs` (30 s) whoever
 * asks, and never holding the request up longer than `boundMs` (1.5 s). A read still under way
 * at the bound goes on and serves the next request; the late one is filed with a plain line
 * saying the load could not be read. A service that is not running is not read at all (a read
 * never wakes a service, and such a service has no replica to answer).
 *
 * The reads are shared in this process, keyed by organization and service; each bot replica
 * reads on its own (at most one read per service per 30 s per replica).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConcernOf, loadReadNote, type LiveLoadNote } from '../core/change/live-load.js';
import type { ChangePlan } from '../core/change/types.js';
import { CloudApiError } from '../core/service/api-error.js';
import { metricsReadable, replicaSizeGb, type ServiceLoad } from '../core/service/load.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { ServiceDirectory } from '../ports/index.js';

export const LOAD_REUSE_MS = 30_000;
export const LOAD_BOUND_MS = 1_500;

export interface LiveLoadOptions {
  cloudOf: (organization: string | undefined) => ServiceDirectory;
  now: () => number;
  /** One read per service within this (default 30 s): the requests in it share its answer. */
  reuseMs?: number;
  /** The longest a request waits for the read (default 1.5 s). */
  boundMs?: number;
}

/** What one read came to: the load and when it was read, or the error. */
type Outcome = { ok: true; load: ServiceLoad; readAt: number } | { ok: false; error: unknown };

interface SharedRead {
  startedAt: number;
  outcome: Promise<Outcome>;
}

export interface LoadAsk {
  plan: ChangePlan;
  service: ServiceRecord;
  organization?: string;
  /** Who files the request: the read is theirs in the API budget. */
  person: string;
}

export class LiveLoadReader {
  private readonly reads = new Map<string, SharedRead>();
  private readonly reuseMs: number;
  private readonly boundMs: number;

  constructor(private readonly options: LiveLoadOptions) {
    this.reuseMs = options.reuseMs ?? LOAD_REUSE_MS;
    this.boundMs = options.boundMs ?? LOAD_BOUND_MS;
  }

  /** The note the request is filed with; undefined when its plan risks nothing or the service is not running. */
  async noteFor(ask: LoadAsk): Promise<LiveLoadNote | undefined> {
    if (loadConcernOf(ask.plan) === undefined || !metricsReadable(ask.service)) return undefined;
    const askedAt = this.options.now();
    const bound = new AbortController();
    const outcome = await Promise.race([
      this.shared(ask).outcome,
      sleep(this.boundMs, undefined, { signal: bound.signal }).then(
        () => undefined,
        () => undefined,
      ),
    ]);
    bound.abort();
    if (outcome === undefined) return { kind: 'failed', why: 'slow', afterMs: this.boundMs };
    if (outcome.ok) return loadReadNote(outcome.load, replicaSizeGb(ask.service), outcome.readAt, askedAt);
    const { error } = outcome;
    if (!(error instanceof CloudApiError)) return { kind: 'failed', why: 'unexpected' };
    return { kind: 'failed', why: error.kind, ...(error.status === undefined ? {} : { status: error.status }) };
  }

  /** The read of this service started within `reuseMs`, whatever it came to; else a new one. */
  private shared(ask: LoadAsk): SharedRead {
    const now = this.options.now();
    this.forgetOld(now);
    const key = `${ask.organization ?? ''}\n${ask.service.id}`;
    const known = this.reads.get(key);
    if (known) return known;
    const outcome = Promise.resolve()
      .then(() =>
        this.options.cloudOf(ask.organization).readLoad(ask.service.id, { priority: 'command', person: ask.person }),
      )
      .then(
        (load): Outcome => ({ ok: true, load, readAt: this.options.now() }),
        (error: unknown): Outcome => ({ ok: false, error }),
      );
    const read = { startedAt: now, outcome };
    this.reads.set(key, read);
    return read;
  }

  /** Reads started longer ago than `reuseMs` are not reused: dropped, so the map stays small. */
  private forgetOld(now: number): void {
    for (const [key, read] of this.reads) if (now - read.startedAt >= this.reuseMs) this.reads.delete(key);
  }
}
