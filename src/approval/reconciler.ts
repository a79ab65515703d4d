/**
 * Settles, now and then, the requests a dead replica left in "applying" (ApprovalFlow's
 * reconcileStuck), one pass at a time: a slow API must not stack passes on top of each other.
 */
import type { Log } from '../ports/index.js';
import type { ApprovalFlow } from './approval-flow.js';

export interface ReconcilerOptions {
  /** A request in "applying" longer than this is taken for abandoned by a dead replica. */
  stuckAfterMs: number;
  everyMs: number;
  logger: Pick<Log, 'warn'>;
}

export interface Reconciler {
  /** Settles when the pass made at start is done, with the number of requests it settled. */
  settledAtStart: Promise<number>;
  /** Stops the passes; waits for the one made at start. */
  stop(): Promise<void>;
}

export function startReconciler(flow: Pick<ApprovalFlow, 'reconcileStuck'>, options: ReconcilerOptions): Reconciler {
  let running: Promise<number> | undefined;
  const reconcile = () => {
    running ??= flow
      .reconcileStuck(options.stuckAfterMs)
      .catch((error: unknown) => {
        options.logger.warn(`reconciling abandoned approvals failed: ${error instanceof Error ? error.message : String(error)}`);
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const settledAtStart = reconcile();
  const timer = setInterval(() => void reconcile(), options.everyMs).unref();
  return {
    settledAtStart,
    async stop() {
      clearInterval(timer);
      await settledAtStart;
    },
  };
}
