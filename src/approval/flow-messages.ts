/**
 * The approval flow's messages: a new request posted (approval channel first), its messages kept
 * in step with the store, the resulting record, a correction, and the requester's DMs. The runner
 * (approval-flow.ts) calls these for the step's effects; every sentence comes from core/render/.
 */
import type { FlowEvent, RequesterNews } from '../core/approval/types.js';
import { FINAL_STATUSES, type ChangeRequest } from '../core/change/types.js';
import { approvalChannelOf, isUserId } from '../core/policy/progress.js';
import { appliedResultText, appliedResultTitle, correctionText } from '../core/render/approval.js';
import { breakGlassNotice } from '../core/render/breakglass.js';
import { requesterMessage, requestMessage, withdrawnInApprovalChannel } from '../core/render/change.js';
import { messageOf } from '../core/render/errors.js';
import { section } from '../core/render/mrkdwn.js';
import { requesterNewsMessage } from '../core/render/requester.js';
import { recordBlocks } from '../core/render/target-record.js';
import type { ServiceRecord } from '../core/service/schema.js';
import { MessengerError, type ChangeStore, type Log, type Messenger } from '../ports/index.js';

export interface FlowMessagesOptions {
  messenger: Messenger;
  store: ChangeStore;
  logger: Pick<Log, 'warn' | 'error'>;
}

export class FlowMessages {
  constructor(private readonly options: FlowMessagesOptions) {}

  /**
   * Posts a new request: in its approval channel first (with the buttons) when a rule names one,
   * then in the requester's channel (a link there, the request itself otherwise). Nothing is left
   * half-posted: a request the requester's channel could not take is withdrawn in the approval
   * channel too.
   */
  async postRequest(request: ChangeRequest): Promise<{ event: FlowEvent; cause?: string }> {
    const { messenger } = this.options;
    /** `approvalChannel`: the failure was there, and the requester is told which channel to invite the bot to. */
    const failed = (error: unknown, approvalChannel?: string) => {
      const notInChannel = error instanceof MessengerError && error.reason === 'not-in-channel';
      const event: FlowEvent = {
        type: 'post-failed',
        notInChannel,
        ...(notInChannel && approvalChannel ? { channelId: approvalChannel } : {}),
      };
      return { event, cause: messageOf(error) };
    };
    const approvalChannel = approvalChannelOf(request);
    let approvalTs: string | undefined;
    if (approvalChannel !== undefined) {
      try {
        approvalTs = await messenger.post(approvalChannel, requestMessage(request));
      } catch (error) {
        return failed(error, approvalChannel);
      }
    }
    try {
      const ts = await messenger.post(request.channelId, { ...requesterMessage(request), ...inThread(request) });
      return { event: { type: 'posted', ts, ...(approvalTs ? { approvalTs } : {}) } };
    } catch (error) {
      if (approvalChannel !== undefined && approvalTs !== undefined)
        await messenger
          .update(approvalChannel, approvalTs, withdrawnInApprovalChannel(request))
          .catch((cause: unknown) =>
            this.options.logger.warn(
              `change ${request.id}: could not withdraw it in ${approvalChannel}: ${messageOf(cause)}`,
            ),
          );
      return failed(error);
    }
  }

  /**
   * Shows the request in its message. A replica that was held up must never leave "applying"
   * over a newer outcome, so after showing a status that is not final it reads the request
   * again and shows the newer status if it moved meanwhile (final statuses never change). A
   * request the caller is applying under a lease nobody can have taken over yet (`surelyHeld`,
   * asked after the update) has not moved: no read then.
   */
  async refreshMessage(request: ChangeRequest, surelyHeld: () => boolean = () => false): Promise<void> {
    try {
      let shown = request;
      for (let round = 0; round < 3; round++) {
        if (!shown.messageTs) return;
        await this.options.messenger.update(shown.channelId, shown.messageTs, requesterMessage(shown));
        const decidedIn = approvalChannelOf(shown);
        if (decidedIn && shown.approvalTs)
          await this.options.messenger.update(decidedIn, shown.approvalTs, requestMessage(shown));
        await this.showCopies(shown);
        if (FINAL_STATUSES.includes(shown.status)) return;
        if (shown.status === 'applying' && surelyHeld()) return;
        const latest = await this.options.store.get(request.id);
        if (!latest || latest.status === shown.status) return;
        shown = {
          ...latest,
          messageTs: latest.messageTs ?? shown.messageTs,
          ...((latest.approvalTs ?? shown.approvalTs) ? { approvalTs: latest.approvalTs ?? shown.approvalTs } : {}),
        };
      }
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not update its message: ${messageOf(error)}`);
    }
  }

  /**
   * The request's copies sent elsewhere (approvers' DMs) show it as it is now, like its channel
   * message: no "0 of 2 approvals" nor live buttons once it settled. One that fails is logged and
   * the others are still shown.
   */
  async showCopies(request: ChangeRequest): Promise<void> {
    const { messenger, store, logger } = this.options;
    for (const copy of await store.copiesOf(request.id))
      await messenger
        .update(copy.channelId, copy.ts, requestMessage(request))
        .catch((error: unknown) =>
          logger.warn(`change ${request.id}: could not update its copy in ${copy.channelId}: ${messageOf(error)}`),
        );
  }

  /**
   * The service as the change left it, in the thread of the request's message (the requester's
   * channel's, wherever it was decided): the channel keeps one message per change, updated in place.
   */
  async postResult(request: ChangeRequest, service: ServiceRecord): Promise<void> {
    try {
      await this.options.messenger.post(request.channelId, {
        text: appliedResultText(request.id, service),
        blocks: recordBlocks(service, appliedResultTitle(request.id, service)),
        ...threadOf(request),
      });
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not post the resulting service: ${messageOf(error)}`);
    }
  }

  /**
   * ClickHouse Cloud confirmed an update after another replica had settled the request: if that
   * replica concluded otherwise, say so in the request's thread rather than leave a wrong record.
   */
  async correctIfSettledOtherwise(request: ChangeRequest, apiRequestId: string | undefined): Promise<void> {
    const settled = await this.options.store.get(request.id);
    if (!settled || settled.status === 'applied' || !settled.messageTs) return;
    const text = correctionText(request.id, apiRequestId);
    try {
      await this.options.messenger.post(request.channelId, {
        text,
        blocks: [section(text)],
        ...threadOf(settled),
      });
    } catch (error) {
      this.options.logger.warn(`change ${request.id}: could not post the correction: ${messageOf(error)}`);
    }
  }

  /** A DM to whoever asked for the request (a revert: the original's requester); failures are logged. */
  async tellRequester(request: ChangeRequest, news: RequesterNews): Promise<void> {
    try {
      const original = request.revertOf ? await this.options.store.get(request.revertOf) : undefined;
      const to = request.revertOf ? original?.requesterId : request.requesterId;
      // The bot files reverts as "the bot": only a Slack user can be written to.
      if (!to || !isUserId(to)) return;
      await this.options.messenger.dm(to, requesterNewsMessage(request, news));
    } catch (error) {
      this.options.logger.warn(
        `change ${request.id}: could not tell its requester it was ${news.kind}: ${messageOf(error)}`,
      );
    }
  }

  /** Loud: who broke glass, on what and why, in the security channel (the channel has the request itself). */
  async announceBreakGlass(channel: string | undefined, request: ChangeRequest): Promise<void> {
    if (!channel) return;
    try {
      await this.options.messenger.post(channel, breakGlassNotice(request));
    } catch (error) {
      this.options.logger.error(
        `change ${request.id}: break-glass could not be announced in the security channel ${channel}: ${messageOf(error)}`,
      );
    }
  }
}

/** Posted as a reply in the request's thread when it has one (reverts, extensions, undos). */
export function inThread(request: ChangeRequest): { threadTs?: string } {
  return request.threadTs ? { threadTs: request.threadTs } : {};
}

/**
 * Where what follows a request goes: the thread it was posted in (reverts, extensions, undos live
 * in their original's thread), else its own message's thread.
 */
export function threadOf(request: Pick<ChangeRequest, 'threadTs' | 'messageTs'>): { threadTs?: string } {
  const threadTs = request.threadTs ?? request.messageTs;
  return threadTs ? { threadTs } : {};
}
