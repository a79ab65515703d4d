/** Block Kit for time-boxed changes, their reverts and reminders, and the Undo button. */
import { undoable } from '../change/kinds/index.js';
import { BOT_ACTOR } from '../change/grant.js';
import { formatDuration } from '../change/temporary.js';
import type { ChangeRequest } from '../change/types.js';
import { code, context, esc, header, LIMITS, packLines, section, serviceRef, slackDate, type Block } from './mrkdwn.js';
import { mention } from './people.js';

export const ACTION_UNDO = 'change_undo';
const UNDO_BLOCK = 'change_undo';
export const ACTION_EXTEND = 'temporary_extend';
export const ACTION_REVERT_NOW = 'temporary_revert_now';

/** The line a temporary request, a revert or an extension carries under its changes. */
export function temporaryNote(request: ChangeRequest): Block[] {
  if (request.revertOf)
    return [
      context(
        `:rewind: Revert of the temporary change ${code(request.revertOf)}, ${revertAskedText(request)}; it needs no approval.`,
      ),
    ];
  if (request.undoOf)
    return [
      context(`:leftwards_arrow_with_hook: Undoes the change ${code(request.undoOf)}, as the service shows it now.`),
    ];
  if (!request.temporary) return [];
  const duration = formatDuration(request.temporary.durationMs);
  if (request.extendOf) {
    return [
      context(
        `:stopwatch: Extends the temporary change ${code(request.extendOf)}: once approved, its revert moves ${esc(duration)} later than planned.`,
      ),
    ];
  }
  return [
    context(`:stopwatch: *Temporary:* for ${esc(duration)}.${revertWhenText(request, request.temporary.durationMs)}`),
  ];
}

/**
 * When the bot takes a temporary request back, as true as its status lets it be: "if approved now"
 * only while it waits for approval; a time only where it is known (an applied one's is in its thread).
 */
function revertWhenText(request: ChangeRequest, durationMs: number): string {
  const after = `The bot reverts it ${esc(formatDuration(durationMs))} after it`;
  const { status, applyAt } = request;
  if (status === 'applied') return ` ${after} was applied, without approval: its thread says when.`;
  // Break-glass and a request no rule asks approval for are applied at once: no "if approved".
  const atOnce = request.breakGlass || request.requirements?.every((r) => r.approvals === 0) === true;
  if (status === 'applying' || atOnce) return ` ${after} is applied, without approval.`;
  if (status === 'scheduled' || (status === 'pending' && applyAt !== undefined))
    return applyAt === undefined
      ? ` ${after} is applied, without approval.`
      : ` ${after} is applied at its time (at ${slackDate(applyAt + durationMs)}), without approval.`;
  if (status === 'pending')
    return ` ${after} is applied (if approved now, at ${slackDate(request.createdAt + durationMs)}), without approval.`;
  // Rejected, cancelled, expired or failed: nothing was applied, so nothing is reverted.
  return '';
}

/** Who asked for a revert and when: the bot at the grant's time, or someone's Revert now. */
export function revertAskedText(revert: ChangeRequest): string {
  if (revert.requesterId === BOT_ACTOR) return `filed by the bot at its time (${slackDate(revert.createdAt)})`;
  return `asked by ${mention(revert.requesterId)} with Revert now at ${slackDate(revert.createdAt)}`;
}

/**
 * The original's message once its revert was applied: marked reverted, by what and when, and
 * without Undo (nothing of it is left to undo).
 */
export function revertedOriginalMessage(
  message: { text: string; blocks: Block[] },
  revert: ChangeRequest,
): { text: string; blocks: Block[] } {
  const line = `:rewind: *Reverted* by ${code(revert.id)}, ${revertAskedText(revert)}.`;
  const blocks = message.blocks.filter((block) => !('block_id' in block && block.block_id === UNDO_BLOCK));
  return { text: message.text, blocks: [...blocks, context(line)] };
}

/** Whether an applied request's outcome offers Undo: reverts and extensions have nothing to undo. */
export function offersUndo(request: ChangeRequest): boolean {
  return request.status === 'applied' && !request.revertOf && !request.extendOf && undoable(request.plan);
}

export function undoButton(request: ChangeRequest): Block {
  return {
    type: 'actions',
    block_id: UNDO_BLOCK,
    elements: [
      { type: 'button', action_id: ACTION_UNDO, text: { type: 'plain_text', text: 'Undo' }, value: request.id },
    ],
  };
}

/** In the original's thread once it is applied: when the bot takes it back. */
export function scheduledRevertMessage(request: ChangeRequest, dueAt: number, extended: boolean) {
  // The date token is the bot's own: only the data around it is escaped.
  const text = `${extended ? 'Extended: ' : ''}the bot reverts ${esc(request.id)} at ${slackDate(dueAt)}.`;
  return {
    text,
    blocks: [
      section(
        `:stopwatch: ${extended ? '*Extended.* ' : ''}The bot reverts ${code(request.id)} on ${serviceRef(request.plan.serviceName, request.plan.serviceId)} at ${slackDate(dueAt)}, without approval.`,
      ),
    ],
  };
}

/** The reminder in the original's thread, with Extend and Revert now. */
export function reminderMessage(request: ChangeRequest, dueAt: number): { text: string; blocks: Block[] } {
  const duration = request.temporary ? formatDuration(request.temporary.durationMs) : '';
  return {
    text: `The temporary change ${esc(request.id)} is reverted at ${slackDate(dueAt)}`,
    blocks: [
      section(
        `:alarm_clock: ${mention(request.requesterId)} the temporary change ${code(request.id)} on ${serviceRef(request.plan.serviceName, request.plan.serviceId)} is reverted at ${slackDate(dueAt)}. ` +
          `*Extend* asks for ${esc(duration)} more (approved like any change); *Revert now* takes it back at once (you or an approver).`,
      ),
      {
        type: 'actions',
        block_id: 'temporary_actions',
        elements: grantButtons(request.id),
      },
    ],
  };
}

/** Why a temporary change past its time is still in place: its organization left the bot's file. */
export function organizationMissingMessage(
  request: ChangeRequest,
  organization: string,
): { text: string; blocks: Block[] } {
  const text =
    `:warning: The temporary change ${code(request.id)} on ${serviceRef(request.plan.serviceName, request.plan.serviceId)} is past its time but the bot cannot take it back: ` +
    `its organization ${code(organization)} is no longer in the bot's list of organizations, so it is still in place. ` +
    `An operator must put that organization back (and reload the bot); the bot keeps trying and reverts it then.`;
  return { text: `The temporary change ${request.id} cannot be reverted yet`, blocks: [section(text)] };
}

/** Revert now, Extend or Undo clicked on a change whose organization left the bot's file. */
export function organizationMissingClickText(organization: string): string {
  return (
    `:no_entry: The bot cannot do this, so nothing was changed: its organization ${code(organization)} is no longer in the bot's list of organizations, ` +
    `so the bot cannot reach its services. An operator must put that organization back (and reload the bot) first.`
  );
}

/** Extend and Revert now for a temporary change: the same buttons in its thread and the Home tab. */
export function grantButtons(requestId: string) {
  return [
    {
      type: 'button' as const,
      action_id: ACTION_EXTEND,
      text: { type: 'plain_text' as const, text: 'Extend' },
      value: requestId,
    },
    {
      type: 'button' as const,
      action_id: ACTION_REVERT_NOW,
      text: { type: 'plain_text' as const, text: 'Revert now' },
      style: 'danger' as const,
      value: requestId,
    },
  ];
}

/** One temporary change in a list (`temporary`, the Home tab): its line, then Extend and Revert now. */
export function grantEntryBlocks(line: string, requestId: string, blockId: string): Block[] {
  return [section(line), { type: 'actions', block_id: blockId, elements: grantButtons(requestId) }];
}

/** The reminder once the grant is done with: the same words, no buttons, and where to look. */
export function reminderClosedMessage(request: ChangeRequest, revertId: string): { text: string; blocks: Block[] } {
  const text = `:white_check_mark: The temporary change ${code(request.id)} on ${serviceRef(request.plan.serviceName, request.plan.serviceId)} is over: see ${code(revertId)} in this thread.`;
  return { text: `The temporary change ${esc(request.id)} is over`, blocks: [section(text)] };
}

/** In the thread when the revert found nothing of the change left to take back. */
export function nothingToRevertMessage(request: ChangeRequest, found: string[]) {
  const lines = found.map((sentence) => `• ${esc(sentence)}`).join('\n');
  return {
    text: esc(`Nothing to revert for ${request.id}: someone changed it meanwhile`),
    blocks: [
      section(
        `:information_source: At its expiry the bot found that the temporary change ${code(request.id)} had already been changed by someone else, so it left the service as it is:\n${lines}`,
      ),
    ],
  };
}

/** An applied temporary change, when its revert is tried next and, if it failed, when it was due. */
export interface TemporaryEntry {
  request: ChangeRequest;
  dueAt: number;
  /** Set once its revert failed: when it was due as planned (dueAt is then the next try). */
  overdueSince?: number;
}

/**
 * When a temporary change is reverted; that its revert is due and under way (its time passed, not
 * yet done: a tick or a takeover away); or that it failed, since when, and when it is tried again.
 */
export function revertTimeText({ dueAt, overdueSince }: Omit<TemporaryEntry, 'request'>, now: number): string {
  if (overdueSince !== undefined)
    return `:warning: *revert overdue* since ${slackDate(overdueSince)}; the bot tries again ${slackDate(dueAt)}`;
  if (dueAt <= now) return `:hourglass: revert due ${slackDate(dueAt)}, under way`;
  // A time to come: "reverted <date>" would read as done.
  return `the bot reverts it ${slackDate(dueAt)}`;
}

/** `temporary`: a channel's temporary changes and when each is reverted. */
export function temporaryListBlocks(entries: TemporaryEntry[], now: number): Block[] {
  if (entries.length === 0) return [section('No temporary change is active in this channel.')];
  const lines = entries.map(
    (entry) =>
      `• ${code(entry.request.id)} ${serviceRef(entry.request.plan.serviceName, entry.request.plan.serviceId)} by ${mention(entry.request.requesterId)}: ${esc(entry.request.plan.changes.map((c) => c.after).join(', '))} · ${revertTimeText(entry, now)}`,
  );
  // Each with its own Extend and Revert now while they fit one message (two blocks each); beyond, lines only.
  if (entries.length * 2 <= LIMITS.messageBlocks - 1)
    return [
      header(`Temporary changes (${entries.length})`),
      ...entries.flatMap(({ request }, index) =>
        grantEntryBlocks(lines[index] ?? '', request.id, `temporary_${index}`),
      ),
    ];
  return [
    header(`Temporary changes (${entries.length})`),
    ...packLines(lines, LIMITS.messageBlocks - 1, (n) => `_…and ${n} more_`),
  ];
}
