/** A look repeated every so often, one at a time: due reverts, reminders, escalations. */
import type { Log } from '../ports/log.js';

export interface Ticks {
  /** Settles when the look made at start (whatever fell due while every replica was down) is done. */
  firstPass: Promise<void>;
  stop(): Promise<void>;
}

/** Looks at start and every `everyMs`; a look still running is not started again, and a failed one is logged. */
export function startTicks(
  what: string,
  look: () => Promise<void>,
  everyMs: number,
  logger: Pick<Log, 'warn'>,
): Ticks {
  let running: Promise<void> | undefined;
  const once = () => {
    running ??= look()
      .catch((error: unknown) =>
        logger.warn(`looking for ${what} failed: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const firstPass = once();
  const timer = setInterval(() => void once(), everyMs).unref();
  return {
    firstPass,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
