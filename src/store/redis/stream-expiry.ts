/**
 * When an audit stream's expiry is renewed. A stream must outlive its newest entry by the audit
 * retention; renewing it (PEXPIRE) with every entry cost the server one command per stream per
 * entry, half the audit's work per approval. Instead each process renews a stream's expiry at most
 * once per RENEW_EVERY_MS, to the retention and RENEW_EVERY_MS more: any entry is then written at
 * most RENEW_EVERY_MS after a renewal, so the stream still lives the retention after it.
 * Only a renewal that happened counts: the caller says so only when its script wrote the entry
 * (a script that returned early, or failed, renewed nothing).
 */
export const RENEW_EVERY_MS = 24 * 3_600_000;
/** Streams remembered at most; past it the memory starts over (each stream is then renewed once more). */
const STREAMS_REMEMBERED = 10_000;

export class StreamExpiry {
  /** What the scripts set: the retention and the renewal interval. */
  readonly ttlMs: number;
  private readonly renewedAt = new Map<string, number>();

  constructor(
    retentionMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.ttlMs = retentionMs + RENEW_EVERY_MS;
  }

  /**
   * Which streams a script about to run should renew: one character per stream, '1' where its
   * expiry is due, as the scripts read it; `at` is taken before the script runs (never later than
   * the server's renewal), so counting from it errs on the early side.
   */
  due(streams: readonly string[]): Renewal {
    const at = this.clock();
    const flags = streams
      .map((stream) => (at - (this.renewedAt.get(stream) ?? -Infinity) >= RENEW_EVERY_MS ? '1' : '0'))
      .join('');
    return { streams, flags, at };
  }

  /** After a script that wrote its audit entry (and so renewed what `due` flagged). */
  renewed({ streams, flags, at }: Renewal): void {
    if (this.renewedAt.size > STREAMS_REMEMBERED) this.renewedAt.clear();
    streams.forEach((stream, index) => {
      if (flags[index] === '1') this.renewedAt.set(stream, at);
    });
  }
}

export interface Renewal {
  streams: readonly string[];
  flags: string;
  at: number;
}
