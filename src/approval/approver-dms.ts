/**
 * Tells approvers directly (issue 25): each person who can approve an unmet rule that notifies by
 * DM gets the request with working Approve and Reject buttons (the same request and exactly-once
 * path as the channel's buttons), at most once per request, plus one reminder (with a link to the
 * request and the same buttons); the people a rule escalates to are told when it does. User groups
 * are resolved now (and again at the click, by the approval policy). A DM that fails is logged and
 * never holds up the request.
 */
import { dmTargets, withEscalation } from '../core/policy/nudges.js';
import { approvalChannelOf, isGroupId } from '../core/policy/progress.js';
import type { PolicyDefaults, Requirement } from '../core/policy/types.js';
import { requestMessage } from '../core/render/change.js';
import { reminderDmMessage, type NudgeMessage, type RequestPlace } from '../core/render/nudge.js';
import { requirementsOf } from '../core/render/policy.js';
import type { ChangeRequest } from '../core/change/types.js';
import type { ChangeStore } from '../ports/change-store.js';
import type { Log } from '../ports/log.js';
import type { Messenger, PostedMessage } from '../ports/messenger.js';

/** A claim outlives the request by this much, so a late replica never sends it again. */
const CLAIM_MARGIN_MS = 3_600_000;
/** More people than this on one request is a group too large to message one by one. */
const MAX_PEOPLE = 50;
/** No person gets more than this many messages about requests in an hour, however many wait. */
export const MAX_DMS_PER_PERSON_HOUR = 20;
const HOUR_MS = 3_600_000;

export interface ApproverDmsOptions {
  store: ChangeStore;
  messenger: Messenger;
  defaults: PolicyDefaults;
  logger: Pick<Log, 'warn'>;
  now: () => number;
}

export class ApproverDms {
  constructor(private readonly options: ApproverDmsOptions) {}

  /** A new request: its approvers get it, with the buttons. */
  async filed(request: ChangeRequest): Promise<void> {
    const people = await this.people(dmTargets(request, this.requirementsNow(request)));
    await this.sendRequest(request, people);
  }

  /**
   * Its first reminder: the people told of it get one reminder each, with a link to the request and
   * its buttons. Each is recorded as a copy of the request, so once it moves the flow shows it there
   * as it is (no live buttons on a settled request).
   */
  async reminded(request: ChangeRequest, message: NudgeMessage): Promise<void> {
    const people = await this.people(dmTargets(request, this.requirementsNow(request)));
    if (people.length === 0) return;
    const dm = reminderDmMessage(request, message, await this.placeOf(request));
    await this.recordCopies(request, await this.send(request, people, 'dm-remind', dm));
  }

  /** Where the approvers decide it (the approval channel's message, else the request's), with Slack's link to it. */
  private async placeOf(request: ChangeRequest): Promise<RequestPlace> {
    const decidedIn = approvalChannelOf(request);
    const [channelId, ts] =
      decidedIn && request.approvalTs ? [decidedIn, request.approvalTs] : [request.channelId, request.messageTs];
    if (!ts) return { channelId };
    try {
      return { channelId, link: await this.options.messenger.permalink(channelId, ts) };
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: no link to its message for the reminder: ${String(error)}`);
      return { channelId };
    }
  }

  /** A rule escalated: the people it escalates to get the request, with the buttons. */
  async escalated(request: ChangeRequest, requirement: Requirement): Promise<void> {
    const people = await this.people(requirement.escalate?.to ?? []);
    await this.sendRequest(request, people);
  }

  /**
   * The request itself, with its buttons: each copy is recorded, so the flow shows it as the
   * request moves. One that moved while these were sent (before the copies were recorded) is
   * shown in them here.
   */
  private async sendRequest(request: ChangeRequest, people: readonly string[]): Promise<void> {
    await this.recordCopies(request, await this.send(request, people, 'dm', requestMessage(request)));
  }

  /** Records the DMs as copies of the request; one that moved while they were sent is shown in them here. */
  private async recordCopies(request: ChangeRequest, copies: readonly PostedMessage[]): Promise<void> {
    const { store, messenger, logger } = this.options;
    for (const copy of copies) await store.recordCopy(request, copy);
    const latest = copies.length > 0 ? await store.get(request.id) : undefined;
    if (!latest || !movedSince(request, latest)) return;
    for (const copy of copies)
      await messenger
        .update(copy.channelId, copy.ts, requestMessage(latest))
        .catch((error: unknown) => logger.warn(`change ${request.id}: could not update its DM: ${String(error)}`));
  }

  /** One of the person's hourly slots, claimed across replicas; false once they are all taken. */
  private async withinHourlyLimit(userId: string): Promise<boolean> {
    const hour = Math.floor(this.options.now() / HOUR_MS);
    for (let slot = 0; slot < MAX_DMS_PER_PERSON_HOUR; slot++)
      if (await this.options.store.claimOnce(`dm-hour:${userId}:${hour}:${slot}`, 2 * HOUR_MS)) return true;
    return false;
  }

  private requirementsNow(request: ChangeRequest): readonly Requirement[] {
    return withEscalation(requirementsOf(request, this.options.defaults), request.createdAt, this.options.now());
  }

  /** Users as they are, groups by their members now; a group Slack will not list is logged and skipped. */
  private async people(ids: readonly string[]): Promise<string[]> {
    const people = new Set<string>();
    for (const id of ids) {
      if (!isGroupId(id)) {
        people.add(id);
        continue;
      }
      try {
        for (const member of await this.options.messenger.groupMembers(id)) people.add(member);
      } catch (error) {
        this.options.logger.warn(`could not list the members of ${id} to message them: ${String(error)}`);
      }
    }
    return [...people].slice(0, MAX_PEOPLE);
  }

  /** Sends the message to each person not sent it yet; answers where each was posted. */
  private async send(
    request: ChangeRequest,
    people: readonly string[],
    kind: string,
    message: NudgeMessage,
  ): Promise<PostedMessage[]> {
    const { store, messenger, logger, now } = this.options;
    const posted: PostedMessage[] = [];
    const ttl = request.expiresAt - now() + CLAIM_MARGIN_MS;
    // The requester may be in an approvers' group: they are never asked about their own request.
    for (const userId of people.filter((id) => id !== request.requesterId)) {
      const key = `${kind}:${request.id}:${userId}`;
      if (!(await store.claimOnce(key, ttl))) continue;
      if (!(await this.withinHourlyLimit(userId))) {
        logger.warn(`change ${request.id}: ${userId} had ${MAX_DMS_PER_PERSON_HOUR} messages this hour; not messaged`);
        continue;
      }
      try {
        posted.push(await messenger.dm(userId, message));
      } catch (error) {
        // Deactivated, DMs closed: logged, never retried into a storm, never blocking the request.
        logger.warn(`change ${request.id}: could not message ${userId}: ${String(error)}`);
      }
    }
    return posted;
  }
}

/** Whether the request moved since it was drawn: decided, or approved once more. */
function movedSince(drawn: ChangeRequest, latest: ChangeRequest): boolean {
  return latest.status !== drawn.status || (latest.approvals?.length ?? 0) !== (drawn.approvals?.length ?? 0);
}
