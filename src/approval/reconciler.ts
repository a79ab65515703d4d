/**
 * Settles, every quarter lease, the requests whose replica stopped renewing its lease while
 * applying them (ApprovalFlow's reconcileAbandoned), one pass at a time: a slow API must not
 * stack passes on top of each other. A lease not renewed for its whole length is so taken over
 * within another quarter of it. At start, once, it also files the break-glass reviews a stopped
 * replica owed (ApprovalFlow's fileOwedReviews).
 */
import { messageOf } from '../core/render/errors.js';
import type { Log } from '../ports/index.js';
import type { ApprovalFlow } from './approval-flow.js';

export interface ReconcilerOptions {
  everyMs: number;
  logger: Pick<Log, 'warn'>;
}

export interface Reconciler {
  /** Settles when the pass made at start is done, with the number of requests it settled. */
  settledAtStart: Promise<number>;
  /** Stops the passes; waits for the one made at start. */
  stop(): Promise<void>;
}

export function startReconciler(
  flow: Pick<ApprovalFlow, 'reconcileAbandoned' | 'fileOwedReviews'>,
  options: ReconcilerOptions,
): Reconciler {
  let running: Promise<number> | undefined;
  const reconcile = () => {
    running ??= flow
      .reconcileAbandoned()
      .catch((error: unknown) => {
        options.logger.warn(`reconciling abandoned approvals failed: ${messageOf(error)}`);
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const settledAtStart = reconcile();
  // Once, at start: the reviews of break-glass changes a stopped replica applied but did not file.
  const reviewsAtStart = flow
    .fileOwedReviews()
    .catch((error: unknown) => options.logger.warn(`filing owed break-glass reviews failed: ${messageOf(error)}`));
  const timer = setInterval(() => void reconcile(), options.everyMs).unref();
  return {
    settledAtStart,
    async stop() {
      clearInterval(timer);
      // A pass in progress may be recording an outcome: let it finish before the stores close.
      await Promise.all([settledAtStart, reviewsAtStart, running]);
    },
  };
}
