/** What happened to a change request, for whoever watches (metrics, structured logs). */
export type ChangeEventOutcome = 'requested' | 'applied' | 'failed' | 'stale' | 'rejected' | 'cancelled' | 'expired';

export interface ChangeEvent {
  outcome: ChangeEventOutcome;
  changeRequestId: string;
  serviceId: string;
  channelId: string;
  /** Who caused it: the requester, the approver, or whoever's click found it expired. */
  userId: string;
  apiRequestId?: string;
}

export type ChangeObserver = (event: ChangeEvent) => void;
