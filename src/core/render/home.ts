/**
 * The bot's Home tab (issue 25): what is waiting for this person's approval (with Approve and
 * Reject), their own requests (open, then the last few finished) and their temporary changes
 * (with Extend and Revert now). The buttons are the very ones of the channel's messages, so a
 * click here takes the same exactly-once path. Newest first; what does not fit Block Kit's 100
 * blocks of a Home view is counted ("…and N more"), never silently cut. Pure.
 */
import { appliesAt, waitingUntilText } from './scheduled.js';
import { changeSummary } from '../change/summary.js';
import type { ChangeRequest, ChangeStatus } from '../change/types.js';
import { cancelButton, decisionButtons, justificationPhrase } from './change.js';
import {
  code,
  context,
  divider,
  esc,
  header,
  LIMITS,
  packLines,
  section,
  serviceRef,
  slackDate,
  truncate,
  type Block,
  type View,
} from './mrkdwn.js';
import { mention } from './people.js';
import { progressSummary } from './policy.js';
import { grantEntryBlocks, revertTimeText, type TemporaryEntry } from './temporary.js';

/** Requests waiting for this person shown with their buttons (two blocks each); older ones are counted. */
export const HOME_WAITING_SHOWN = 20;
/** Their own open requests listed; older ones are counted. */
export const HOME_OPEN_SHOWN = 15;
/** Their finished requests listed: the last few. */
export const HOME_FINISHED_SHOWN = 5;
/** Temporary changes shown with Extend and Revert now (two blocks each). */
export const HOME_TEMPORARY_SHOWN = 10;
/** Blocks the list of their own requests may take (lines packed into sections). */
const MINE_BLOCKS = 4;

export interface HomeInput {
  userId: string;
  /** Pending requests this person may approve now (eligibility is the caller's: the approval policy's). */
  waiting: readonly ChangeRequest[];
  /** Their own requests: open ones and recently finished ones, in any order. */
  mine: readonly ChangeRequest[];
  /** Their applied temporary changes and when each is reverted. */
  temporary: ReadonlyArray<TemporaryEntry>;
  now: number;
}

const newestFirst = (a: Pick<ChangeRequest, 'createdAt'>, b: Pick<ChangeRequest, 'createdAt'>) =>
  b.createdAt - a.createdAt;
const isOpen = (status: ChangeStatus) => status === 'pending' || status === 'scheduled' || status === 'applying';

/** The Home view of one person. */
export function homeView(input: HomeInput): View {
  const blocks: Block[] = [
    context(
      `Your ClickHouse Cloud change requests, as of ${slackDate(input.now)}. This page is refreshed whenever one of them moves.`,
    ),
    ...waitingBlocks(input.waiting),
    divider(),
    ...mineBlocks(input.mine),
    divider(),
    ...temporaryBlocks(input.temporary, input.now),
  ];
  return { type: 'home', blocks: blocks.slice(0, LIMITS.homeBlocks) };
}

/** One request in a line: id, service, what it changes, why. */
function requestLine(request: ChangeRequest): string {
  return `${code(request.id)} ${serviceRef(request.plan.serviceName, request.plan.serviceId)}: ${esc(changeSummary(request.plan.changes))}${justificationPhrase(request)}`;
}

const more = (hidden: number, what: string) => context(`_…and ${hidden} more ${what}_`);

function waitingBlocks(waiting: readonly ChangeRequest[]): Block[] {
  const title = header(`Waiting for you (${waiting.length})`);
  if (waiting.length === 0) return [title, section('Nothing is waiting for your approval.')];
  const shown = [...waiting].sort(newestFirst).slice(0, HOME_WAITING_SHOWN);
  const blocks: Block[] = [title];
  shown.forEach((request, index) => {
    const progress = request.requirements ? ` · ${progressSummary(request, request.requirements)}` : '';
    blocks.push(
      section(
        `• ${requestLine(request)}\nby ${mention(request.requesterId)}${progress} · ${waitingUntilText(request)}`,
      ),
      {
        type: 'actions',
        block_id: `home_waiting_${index}`,
        elements: decisionButtons(request.id, request.reviewOf !== undefined),
      },
    );
  });
  const hidden = waiting.length - shown.length;
  if (hidden > 0) blocks.push(more(hidden, 'older requests waiting for you'));
  return blocks;
}

const STATUS: Record<ChangeStatus, (r: ChangeRequest) => string> = {
  pending: (r) =>
    `:hourglass_flowing_sand: waiting for approval${r.requirements ? ` (${progressSummary(r, r.requirements)})` : ''} · ${waitingUntilText(r)}`,
  scheduled: (r) => `:alarm_clock: approved, ${appliesAt(r.applyAt ?? r.expiresAt)}`,
  applying: () => ':hourglass: approved, applying',
  applied: (r) => `:white_check_mark: applied${decided(r)}`,
  failed: (r) => `:x: not applied${decided(r)}`,
  rejected: (r) => `:no_entry: rejected by ${mention(r.decidedBy)}${decided(r)}`,
  cancelled: (r) => `:heavy_multiplication_x: cancelled${decided(r)}`,
  expired: (r) => `:hourglass_flowing_sand: expired ${slackDate(r.expiresAt)}`,
};

const decided = (r: ChangeRequest) => (r.decidedAt ? ` ${slackDate(r.decidedAt)}` : '');

function mineBlocks(mine: readonly ChangeRequest[]): Block[] {
  const open = mine.filter((r) => isOpen(r.status)).sort(newestFirst);
  const finished = mine.filter((r) => !isOpen(r.status)).sort(newestFirst);
  const title = header(`Your requests (${open.length} open)`);
  if (mine.length === 0) return [title, section('You have not asked for any change lately.')];
  const line = (r: ChangeRequest) => `• ${requestLine(r)} · ${STATUS[r.status](r)}`;
  // Each open request on a line of its own, with Cancel while it can still be called off: the
  // requester need not find the channel's message for it.
  const openBlocks = open.slice(0, HOME_OPEN_SHOWN).map((r): Block => {
    // A break-glass review and a revert are not the requester's to call off (the flow refuses).
    const label = r.reviewOf || r.revertOf ? undefined : CANCEL_LABEL[r.status];
    if (!label) return section(line(r));
    // Within a section's 3,000 characters (a form's many IP entries), its status kept whole.
    const status = ` · ${STATUS[r.status](r)}`;
    const text = `• ${truncate(requestLine(r), LIMITS.sectionText - 2 - status.length)}${status}`;
    return { type: 'section', text: { type: 'mrkdwn', text }, accessory: cancelButton(r.id, label) };
  });
  const lines: string[] = [];
  const hiddenOpen = open.length - openBlocks.length;
  if (hiddenOpen > 0) lines.push(`_…and ${hiddenOpen} more open requests of yours_`);
  if (open.length === 0) lines.push('No request of yours is open.');
  const recent = finished.slice(0, HOME_FINISHED_SHOWN);
  if (recent.length > 0) lines.push('*Recently finished:*', ...recent.map(line));
  return [title, ...openBlocks, ...packLines(lines, MINE_BLOCKS, (n) => `_…and ${n} more_`)];
}

/** The requester's Cancel on the Home tab, as on the request's message; none once it is applying. */
const CANCEL_LABEL: Partial<Record<ChangeStatus, string>> = {
  pending: 'Cancel',
  scheduled: 'Cancel before its time',
};

function temporaryBlocks(entries: HomeInput['temporary'], now: number): Block[] {
  const title = header(`Your temporary changes (${entries.length})`);
  if (entries.length === 0) return [title, section('No temporary change of yours is active.')];
  const shown = [...entries].sort((a, b) => a.dueAt - b.dueAt).slice(0, HOME_TEMPORARY_SHOWN);
  const blocks: Block[] = [title];
  shown.forEach((entry, index) => {
    const line = `• ${requestLine(entry.request)} · ${revertTimeText(entry, now)}`;
    blocks.push(...grantEntryBlocks(line, entry.request.id, `home_temporary_${index}`));
  });
  const hidden = entries.length - shown.length;
  if (hidden > 0) blocks.push(more(hidden, 'temporary changes of yours, reverted later'));
  return blocks;
}
