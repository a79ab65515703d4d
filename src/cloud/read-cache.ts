/**
 * Short-lived cache of reads with single flight: concurrent reads of the same key share one
 * request, and a result is reused for `ttlMs`. Invalidation bumps a generation so that a read
 * already in flight when a write lands is handed to its callers but never stored.
 */
export class ReadCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<T>>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    /** Told whenever what a `get` would answer changes: a value stored, or all invalidated. */
    private readonly onChange: () => void = () => undefined,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve(cached.value);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    return this.startLoad(key, load);
  }

  /** Loads afresh (no reuse of a cached or in-flight value) and stores the result. */
  refresh(key: string, load: () => Promise<T>): Promise<T> {
    return this.startLoad(key, load);
  }

  invalidate(): void {
    this.generation += 1;
    this.entries.clear();
    this.inFlight.clear();
    this.onChange();
  }

  private startLoad(key: string, load: () => Promise<T>): Promise<T> {
    const generation = this.generation;
    const promise = load().then(
      (value) => {
        if (generation === this.generation) {
          if (this.ttlMs > 0) {
            this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
            this.onChange();
          }
        }
        this.forget(key, promise);
        return value;
      },
      (error: unknown) => {
        this.forget(key, promise);
        throw error;
      },
    );
    this.inFlight.set(key, promise);
    return promise;
  }

  private forget(key: string, promise: Promise<T>): void {
    if (this.inFlight.get(key) === promise) this.inFlight.delete(key);
  }
}
