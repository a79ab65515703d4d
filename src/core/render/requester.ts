/**
 * What the requester is told directly (a DM) as their request moves: approved, applied, failed,
 * rejected with the rejecter's reason, cancelled by someone else before its time, expired, or their
 * temporary change reverted. Each names
 * the request, the service, what it changed and the channel it lives in.
 */
import type { RequesterNews } from '../approval/types.js';
import { changeSummary } from '../change/summary.js';
import type { ChangeRequest } from '../change/types.js';
import { code, context, esc, section, serviceRef, type Block } from './mrkdwn.js';
import { channelRef, mention } from './people.js';
import { appliesAt } from './scheduled.js';
import { askAgainButton, offersAskAgain } from './change.js';

export function requesterNewsMessage(request: ChangeRequest, news: RequesterNews): { text: string; blocks: Block[] } {
  const service = serviceRef(request.plan.serviceName, request.plan.serviceId);
  const yours = `Your change request ${code(request.id)} to ${service}`;
  const sentence = ((): string => {
    switch (news.kind) {
      case 'approved':
        return request.status === 'scheduled'
          ? `:thumbsup: ${yours} was approved by ${mention(news.by)}; it ${appliesAt(request.applyAt ?? request.expiresAt)}, unless you cancel it before.`
          : `:thumbsup: ${yours} was approved by ${mention(news.by)}; the bot is applying it now.`;
      case 'applied':
        return `:white_check_mark: ${yours} was applied.`;
      case 'failed':
        return `:x: ${yours} was not applied: ${esc(request.outcome?.message ?? 'the update failed.')}`;
      case 'rejected':
        return `:no_entry: ${yours} was rejected by ${mention(news.by)}${news.reason ? `: “${esc(news.reason)}”` : '.'}`;
      case 'cancelled':
        return `:no_entry_sign: ${yours} was cancelled by ${mention(news.by)} before its time, so nothing was changed.`;
      case 'expired':
        // A scheduled request approved in time, but found past SCHEDULED_GRACE: its outcome says why.
        return request.decidedBy && request.applyAt !== undefined && request.outcome?.message
          ? `:hourglass_flowing_sand: ${yours} expired: ${esc(request.outcome.message)}`
          : `:hourglass_flowing_sand: ${yours} expired before it was approved, so nothing was changed. Ask again if it is still needed.`;
      case 'reverted':
        return `:leftwards_arrow_with_hook: Your temporary change ${code(request.revertOf)} to ${service} is over: the bot took it back (${code(request.id)}).`;
    }
  })();
  const what = esc(changeSummary(request.plan.changes));
  return {
    text: sentence,
    blocks: [
      section(sentence),
      context(`${what ? `${what} · ` : ''}in ${channelRef(request.channelId)}`),
      // Refused as stale: the offer to ask again reaches the requester where they are told.
      ...(news.kind === 'failed' && offersAskAgain(request) ? [askAgainButton(request.id)] : []),
    ],
  };
}
