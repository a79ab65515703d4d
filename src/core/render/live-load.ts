/**
 * The live load in a change request's message: one line with what ran when it was asked, and a
 * loud warning when the change ends running queries or leaves less memory than is in use. A read
 * that failed is one plain line: the request stands without it.
 */
import { loadAlarms, loadConcernOf, type LiveLoadNote, type LoadReadFailure } from '../change/live-load.js';
import type { ChangePlan, ChangeStatus } from '../change/types.js';
import { figuresText, gbText } from './health.js';

export interface LiveLoadText {
  /** mrkdwn: "*Right now:* 12 queries running, …, read 20 s ago." */
  line: string;
  /** Plain sentences, shown as the request's warnings are. */
  warnings: string[];
}

/** Undefined when the plan keeps no live load. */
export function liveLoadText(plan: ChangePlan, status: ChangeStatus): LiveLoadText | undefined {
  const note = plan.liveLoad;
  if (note === undefined) return undefined;
  if (note.kind === 'failed') return { line: `Live load could not be read: ${failureText(note)}.`, warnings: [] };
  // Drawn again once decided, the figures are those of when it was asked, and say so.
  const waiting = status === 'pending' || status === 'scheduled';
  const age = ageText(Math.max(0, note.askedAt - note.readAt));
  const partial = note.partial ? ' (some replicas did not answer)' : '';
  const line = waiting
    ? `*Right now:* ${figuresText(note)}, read ${age} ago${partial}.`
    : `*When asked:* ${figuresText(note)}, read ${age} before${partial}.`;
  const alarms = loadAlarms(note, loadConcernOf(plan));
  const warnings = [
    ...(alarms.queriesEnded === undefined
      ? []
      : [
          `${alarms.queriesEnded} ${alarms.queriesEnded === 1 ? 'query was' : 'queries were'} running when this was asked: this change ends ${alarms.queriesEnded === 1 ? 'it' : 'them'}.`,
        ]),
    ...(alarms.memoryAbove === undefined
      ? []
      : [
          `${gbText(alarms.memoryAbove.inUseBytes)} in use on the busiest replica is more than the ${alarms.memoryAbove.newSizeGb} GB per replica this change leaves.`,
        ]),
  ];
  return { line, warnings };
}

function ageText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}

const FAILURES: Record<Exclude<LoadReadFailure, 'http' | 'slow'>, string> = {
  timeout: 'ClickHouse Cloud did not answer in time',
  network: 'the bot could not reach ClickHouse Cloud',
  'rate-limited': "ClickHouse Cloud's rate limit was used up",
  busy: "the bot's share of the ClickHouse Cloud API was taken by other requests",
  'bad-response': 'ClickHouse Cloud sent metrics the bot could not read',
  'invalid-request': 'ClickHouse Cloud refused the read',
  unexpected: 'an error in the bot',
};

function failureText(note: Extract<LiveLoadNote, { kind: 'failed' }>): string {
  if (note.why === 'slow')
    return `no answer within ${((note.afterMs ?? 0) / 1000).toLocaleString('en-US')} s, and the request did not wait longer`;
  if (note.why === 'http')
    return note.status === undefined ? 'ClickHouse Cloud refused the read' : `ClickHouse Cloud answered ${note.status}`;
  return FAILURES[note.why];
}
