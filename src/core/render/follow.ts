/**
 * What people read while the bot follows a change the API accepted (core/capacity/follow.ts): a
 * progress line on the request's message while it moves, and one reply in its thread once it
 * settles, went elsewhere, or is still moving when the bot stops watching.
 */
import type { Progress } from '../capacity/follow.js';
import { differencesText } from '../capacity/values.js';
import type { CapacityValues } from '../capacity/values.js';
import { stateInfo } from '../service/states.js';
import { code, context, esc, LIMITS, section, serviceRef, serviceRefPlain, type Block } from './mrkdwn.js';

/** What every sentence names: the service, and how the following went so far. */
export interface FollowFacts {
  serviceName: string;
  serviceId: string;
  /** What the change leads to (a stop: `{ state: 'stopped' }`). */
  target: CapacityValues;
  /** Reads made since the API accepted (failed ones too: each cost a request). */
  reads: number;
  /** From the API's acceptance to the read that tells. */
  elapsedMs: number;
}

/** How a follow ended: the label of the outcome metric too. */
export type FollowOutcome = 'settled' | 'elsewhere' | 'still-moving';

const label = (state: string) => esc(stateInfo(state).label);

/** "12 s", "2 min 5 s", "10 minutes": seconds while short, then minutes. */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/** "10 minutes", "1 minute", or seconds for a schedule shorter than a minute (tests). */
export function watchedText(ms: number): string {
  if (ms < 60_000) return elapsedText(ms);
  const minutes = Math.round(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

const times = (count: number) => `${count} time${count === 1 ? '' : 's'}`;

/**
 * Where it is while moving, without the service: "is stopping", "does not show the new capacity
 * yet (…)"; once the bot stops watching, "is still stopping", "still does not show …".
 */
function whereNow(progress: Extract<Progress, { kind: 'moving' }>, still = false): string {
  if (progress.missing.length > 0)
    return `${still ? 'still does not' : 'does not'} show the new capacity${still ? '' : ' yet'} (${esc(differencesText(progress.missing))})`;
  if (progress.state === undefined)
    return `${still ? 'still does not' : 'does not'} show its state${still ? '' : ' yet'}`;
  return `is ${still ? 'still ' : ''}${label(progress.state)}`;
}

/** Where it ended, without the service: "is stopped", "shows the new capacity". */
function whereSettled(progress: Extract<Progress, { kind: 'settled' }>, target: CapacityValues): string {
  if (target.state === undefined) return 'shows the new capacity';
  if (progress.state === 'idle' && target.state === 'running') return 'is idle again (it woke, then idled by itself)';
  return `is ${label(progress.state ?? target.state)}`;
}

/** How to look for oneself: `/clickhouse show orders-prod` (quoted when the name has spaces). */
export function showCommand(slashCommand: string, serviceName: string, serviceId: string): string {
  const name = serviceName || serviceId;
  return code(`${slashCommand} show ${/\s/.test(name) ? `"${name}"` : name}`);
}

/** The message's progress line while the service moves (said again only when the reading changes). */
export function movingLine(progress: Extract<Progress, { kind: 'moving' }>, facts: FollowFacts): string {
  const service = serviceRef(facts.serviceName, facts.serviceId);
  return `:hourglass_flowing_sand: ${service} ${whereNow(progress)}… (read ${times(facts.reads)}, ${elapsedText(facts.elapsedMs)} since the API accepted)`;
}

/** The line and the thread reply once the bot stops following, whichever way it ended. */
export function followEndText(
  outcome: FollowOutcome,
  progress: Progress | undefined,
  facts: FollowFacts & { watchedMs: number; slashCommand: string },
): string {
  const service = serviceRef(facts.serviceName, facts.serviceId);
  const check = `Check it with ${showCommand(facts.slashCommand, facts.serviceName, facts.serviceId)}.`;
  const after = `${elapsedText(facts.elapsedMs)} after the API accepted`;
  if (outcome === 'settled' && progress?.kind === 'settled')
    return `:white_check_mark: ${service} ${whereSettled(progress, facts.target)}, ${after}.`;
  if (outcome === 'elsewhere' && progress?.kind === 'elsewhere') {
    if (progress.gone) return `:warning: ${service} no longer exists (${after}). ${check}`;
    const now = progress.state === undefined ? 'shows no state' : `is ${label(progress.state)}`;
    const toward = facts.target.state === undefined ? '' : `, not on its way to ${label(facts.target.state)}`;
    return `:warning: ${service} went elsewhere: it ${now}${toward} (${after}); something else moved it (a failure, or someone by hand). ${check}`;
  }
  const watched = watchedText(facts.watchedMs);
  if (progress?.kind === 'moving') {
    return `:hourglass: ${service} ${whereNow(progress, true)} after ${watched}; the bot stops watching. ${check}`;
  }
  return `:hourglass: The bot could not read ${service} after the API accepted (tried ${times(facts.reads)} over ${watched}); it stops watching. ${check}`;
}

/** The reply in the request's thread once following ends. */
export function followEndMessage(
  requestId: string,
  outcome: FollowOutcome,
  progress: Progress | undefined,
  facts: FollowFacts & { watchedMs: number; slashCommand: string },
): { text: string; blocks: Block[] } {
  const plain = serviceRefPlain(facts.serviceName, facts.serviceId, 200);
  const word: Record<FollowOutcome, string> = {
    settled: 'settled',
    elsewhere: 'went elsewhere',
    'still-moving': 'still moving',
  };
  return {
    text: esc(`${plain} after change ${requestId}: ${word[outcome]}`),
    blocks: [section(followEndText(outcome, progress, facts))],
  };
}

/**
 * The request's message with a progress line: the record's blocks as they are, the line right
 * after the outcome (before the Undo button, when there is one). Never past Slack's 50 blocks.
 */
export function withProgressLine(
  message: { text: string; blocks: Block[] },
  line: string,
): { text: string; blocks: Block[] } {
  const blocks = [...message.blocks];
  if (blocks.length >= LIMITS.messageBlocks) return message;
  const at = blocks.at(-1)?.type === 'actions' ? blocks.length - 1 : blocks.length;
  blocks.splice(at, 0, { ...context(line), block_id: PROGRESS_BLOCK });
  return { text: message.text, blocks };
}

/** The progress line's block: tests and people can tell it from the record's own context lines. */
export const PROGRESS_BLOCK = 'follow_progress';
