/**
 * What the parts of the approval flow share: its options, the runner (one run of the step machine
 * per event from outside), and the record of every outcome for the metrics and the Home tabs.
 * approval-flow.ts builds it once; filing.ts, follow-ons.ts and flow-effects.ts receive it.
 */
import { randomBytes } from 'node:crypto';
import type { FlowEvent, FlowReply, FlowState } from '../core/approval/types.js';
import type { ChangeRequest } from '../core/change/types.js';
import { replyText } from '../core/render/approval.js';
import { messageOf } from '../core/render/errors.js';
import type {
  ApprovalPolicy,
  ChangeEventOutcome,
  ChangeObserver,
  ChangeStore,
  ClickOrigin,
  DecisionReply,
  Log,
  Messenger,
  ServiceDirectory,
} from '../ports/index.js';
import type { SecretDeliveryService } from '../ports/secret-vault.js';
import type { FlowMessages } from './flow-messages.js';
import type { LeasedSender } from './flow-lease.js';
import type { GrantIo } from './grant-io.js';
import type { LeaseHold } from './lease.js';

export interface ApprovalFlowOptions {
  cloud: ServiceDirectory;
  /** Each organization's directory (ORGANIZATIONS_FILE); without it every request goes through `cloud`. */
  cloudOf?: (organization: string | undefined) => ServiceDirectory;
  store: ChangeStore;
  messenger: Messenger;
  policy: ApprovalPolicy;
  ttlMs: number;
  logger: Pick<Log, 'info' | 'warn' | 'error'>;
  now?: () => number;
  /** Pauses between re-reads when an update's outcome is unknown. */
  recheckDelaysMs?: number[];
  /** How long a claimed request stays ours without renewal (renewed every quarter); default 20 s. */
  leaseMs?: number;
  /** This replica's name in leases; default host:pid:random. */
  owner?: string;
  /** How long an approval waits for another change to the same service to finish; default 2 min. */
  serviceLockWaitMs?: number;
  /** The Cloud client's timeout of one request (CLICKHOUSE_TIMEOUT_SECONDS); default 15 s. */
  updateTimeoutMs?: number;
  /** Told of every outcome (requested, applied, failed, stale, rejected, cancelled, expired). */
  observe?: ChangeObserver;
  /** Told with the request itself at each of those outcomes (the Home tabs); it must not block. */
  moved?: (request: ChangeRequest) => void;
  /** Told of every request that reached applied or failed (temporary changes follow up on it). */
  afterSettled?: (request: ChangeRequest) => Promise<void>;
  /** Told of every approval recorded, the request as it is now (the Home tabs); it must not block. */
  afterApproval?: (request: ChangeRequest) => void;
  /** Told of every request posted for approval (its approvers are messaged); never awaited by the requester. */
  afterFiled?: (request: ChangeRequest) => Promise<void>;
  /** SECURITY_CHANNEL: every break-glass change is announced there too. */
  securityChannel?: string;
  /** CONSOLE_URL: where a service's name links to in request messages; undefined: no links. */
  consoleUrl?: string;
  /** Told when a due revert finds its grant's record gone (a metric counts it). */
  onMissingRecord?: (id: string) => void;
  /**
   * Hands a secret an operation's answer carries (a reset password) to one person (DM, Reveal), right
   * where the answer arrives: nothing else in the flow ever holds it. Without it such an answer is
   * dropped and the requester told to reset again.
   */
  deliverSecret?: SecretDeliveryService['deliver'];
  /** Gets back, once, what a request keeps sealed until it is sent (the hashes of a with-hash reset). */
  takeSecret?: SecretDeliveryService['take'];
  /** The live load of risky requests: how long a read serves (30 s) and how long filing waits for it (1.5 s). */
  liveLoad?: { reuseMs?: number; boundMs?: number };
}

/** What one run of the flow left behind: the reply for the person, and whether an outcome was recorded. */
export interface Run {
  state: FlowState;
  reply?: FlowReply;
  /** The request's outcome was recorded by this run (applied or failed). */
  recorded: boolean;
  hold?: LeaseHold;
  /** The error behind the last failed effect, for the log line the step asks for. */
  cause?: string;
  /** The requester's DMs of this run, one after the other. */
  telling?: Promise<void>;
  /** When this run asked the store for the lease it holds (monotonic ms), before the answer came. */
  claimAskedAt?: number;
  /** Where the click this run answers came from (the policy judges a click from elsewhere). */
  origin?: ClickOrigin;
}

/** The flow's shared parts (see the file's comment). */
export interface FlowKit {
  options: ApprovalFlowOptions;
  now: () => number;
  /** This replica's name in leases. */
  owner: string;
  leaseMs: number;
  messages: FlowMessages;
  sender: LeasedSender;
  grants: GrantIo;
  /** Feeds the step one event, performs its effects in order, and feeds back what they answer. */
  run(state: FlowState, first: FlowEvent, origin?: ClickOrigin): Promise<Run>;
  /** Work that shutdown waits for. */
  track<T>(work: Promise<T>): Promise<T>;
}

const OBSERVED: ReadonlySet<string> = new Set<ChangeEventOutcome>([
  'requested',
  'applied',
  'failed',
  'stale',
  'rejected',
  'cancelled',
  'expired',
]);

/** Tells the observer (metrics, logs) and the Home tabs of an outcome of a request. */
export function notify(
  options: Pick<ApprovalFlowOptions, 'observe' | 'moved'>,
  outcome: string,
  request: ChangeRequest,
  userId: string,
  apiRequestId?: string,
): void {
  if (!OBSERVED.has(outcome)) return;
  const event = {
    outcome: outcome as ChangeEventOutcome,
    changeRequestId: request.id,
    serviceId: request.plan.serviceId,
    channelId: request.channelId,
    userId,
  };
  options.observe?.(apiRequestId ? { ...event, apiRequestId } : event);
  options.moved?.(request);
}

/** The directory of the request's organization (the default one for requests stored before organizations). */
export function cloudOf(
  options: Pick<ApprovalFlowOptions, 'cloud' | 'cloudOf'>,
  organization: string | undefined,
): ServiceDirectory {
  return options.cloudOf?.(organization) ?? options.cloud;
}

/** Its approvers are told of a request just posted, in the background: the requester never waits for it. */
export function tellApprovers(kit: FlowKit, request: ChangeRequest, who = 'approvers'): void {
  const { afterFiled, logger } = kit.options;
  void kit.track(
    (afterFiled?.(request) ?? Promise.resolve()).catch((error: unknown) =>
      logger.warn(`change ${request.id}: telling its ${who} failed: ${messageOf(error)}`),
    ),
  );
}

/**
 * A click from outside the request's channels by someone who could not see it there is refused
 * before anything is said of the request (that it is settled, by whom, why it may not be approved).
 */
export async function unseenBy(
  policy: ApprovalPolicy,
  userId: string,
  request: ChangeRequest | undefined,
  origin: ClickOrigin | undefined,
): Promise<DecisionReply | undefined> {
  if (!request || !origin) return undefined;
  const verdict = await policy.maySee(userId, request, origin);
  return verdict.allowed ? undefined : { text: replyText({ kind: 'not-allowed', reason: verdict.reason }) ?? '' };
}

/** What the person who clicked is told: the run's reply, and the form it opens when a rule asks more of them. */
export function replyOf(run: Run): DecisionReply {
  const text = run.reply && replyText(run.reply);
  if (text === undefined) return undefined;
  if (run.reply?.kind !== 'follow-on-unjustified') return { text };
  const { action, originalId, asks } = run.reply;
  return { text, form: { action, originalId, asks } };
}

export function newRequestId(): string {
  return `CR-${randomBytes(5).toString('hex').toUpperCase()}`;
}
