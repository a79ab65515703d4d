/**
 * Holding a request's apply lease while working on it: renewed every quarter of its length, so
 * a live replica keeps it however long the API or the throttle makes it wait, and a dead or
 * frozen one loses it within one lease. The store is the authority (its renew and confirm
 * scripts check the fencing token); `lost` here only saves work once a renewal was refused.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

import { messageOf } from '../core/render/errors.js';
import type { ChangeStore, LeaseToken, Log } from '../ports/index.js';

/** Thrown before sending when the lease is no longer ours: nothing went to ClickHouse Cloud. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly requestId: string) {
    super(`change ${requestId}: this replica no longer holds its lease`);
  }
}

export interface HeldLease {
  readonly token: LeaseToken;
  /** True once a renewal was refused: another replica may own the request now. */
  readonly lost: boolean;
}

/** A name for this process in leases: readable in Redis, unique across restarts. */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** A lease being renewed; `release` stops the renewals (the store lets it expire or a transition ends it). */
export interface LeaseHold {
  readonly lease: HeldLease;
  release(): void;
}

export function holdLease(
  store: ChangeStore,
  token: LeaseToken,
  leaseMs: number,
  logger: Pick<Log, 'warn'>,
): LeaseHold {
  const lease = { token, lost: false };
  let renewing: Promise<void> | undefined;
  const renew = () => {
    renewing ??= store
      .renewLease(token, leaseMs)
      .then((held) => {
        if (!held && !lease.lost) {
          lease.lost = true;
          logger.warn(
            `change ${token.requestId}: lease ${token.fence} was lost; this replica will send and record nothing more for it`,
          );
        }
      })
      .catch((error: unknown) =>
        logger.warn(`change ${token.requestId}: could not renew its lease: ${messageOf(error)}`),
      )
      .finally(() => {
        renewing = undefined;
      });
  };
  const timer = setInterval(renew, Math.max(50, leaseMs / 4));
  timer.unref();
  return { lease, release: () => clearInterval(timer) };
}
