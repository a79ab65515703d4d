/**
 * Every failure told to people is worded here: what went wrong, what to do, and the API's status
 * and request id when there is one, always in the same format (apiReference).
 */
import { CloudApiError } from '../service/api-error.js';
import type { Resolution } from '../service/resolve.js';
import { bold, code, esc } from './mrkdwn.js';

/** The message of anything thrown, for logs: an Error's message, anything else as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const STORE_DOWN_TEXT =
  ":x: The bot's store (Redis) is not answering, so nothing was read or changed. Try again in a minute; if it persists, tell whoever runs the bot.";

/** mrkdwn: what failed, why, and the API's status and request id. */
export function cloudErrorText(error: CloudApiError, doing: string): string {
  return `:x: ${esc(doing)} failed: ${esc(cloudErrorSentence(error))}${apiReference(error)}`;
}

/** Plain text (escape it before it enters mrkdwn); stored as the outcome of failed requests. */
export function cloudErrorSentence(error: CloudApiError): string {
  const api = error.details.apiMessage ? ` It said: "${error.details.apiMessage}".` : '';
  switch (error.kind) {
    case 'timeout':
      return `ClickHouse Cloud did not answer in time. Try again in a minute.`;
    case 'network':
      return `the bot could not reach ClickHouse Cloud. Try again in a minute; if it persists, ask whoever runs the bot to check its network.`;
    case 'rate-limited':
      return `ClickHouse Cloud's rate limit (10 requests per 10 seconds for the bot's key) is used up. Try again in a minute.`;
    case 'bad-response':
      return `ClickHouse Cloud sent an answer the bot could not read. Try again; if it persists, tell whoever runs the bot.`;
    case 'busy':
      return `the bot's share of the ClickHouse Cloud API (10 requests per 10 seconds, for everyone using the bot) is taken by other requests right now, so nothing was sent. Try again in about ${Math.max(1, Math.ceil((error.details.retryAfterMs ?? 10_000) / 1000))} seconds.`;
    case 'invalid-request':
      return /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    case 'http':
      return (error.details.sentence ?? httpSentence(error.details.status ?? 0)) + api;
  }
}

function httpSentence(status: number): string {
  if (status === 400) return 'ClickHouse Cloud refused the request as invalid.';
  if (status === 401)
    return "ClickHouse Cloud refused the bot's API key. Whoever runs the bot should check CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET.";
  if (status === 403)
    return "the bot's API key is not allowed to do this. Whoever runs the bot should give the key a role that may update services.";
  if (status === 404)
    return 'ClickHouse Cloud does not know this service or organization any more. The list command shows what exists.';
  if (status === 409)
    return 'ClickHouse Cloud reported a conflict: the service is busy with another change. Try again in a few minutes.';
  if (status >= 500) return 'ClickHouse Cloud had an internal error. Try again in a few minutes.';
  return `ClickHouse Cloud answered with an error.`;
}

/** The API call a sentence is about (a CloudApiError, or a stored outcome). */
export interface ApiCall {
  status?: number | undefined;
  requestId?: string | undefined;
}

/** " (status 500, request id `abc`)"; plain text (no code span) for sentences escaped later. */
export function apiReference(call: ApiCall, format: 'mrkdwn' | 'plain' = 'mrkdwn'): string {
  const id = (text: string) => (format === 'mrkdwn' ? code(text) : text);
  const parts = [
    call.status === undefined ? undefined : `status ${call.status}`,
    call.requestId ? `request id ${id(call.requestId)}` : undefined,
  ].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** A command failed in a way nobody foresaw: `ref` finds it in the log. */
export function internalErrorText(ref: string): string {
  return `:x: Something went wrong on the bot's side, so nothing was changed. Try again; if it keeps happening, give whoever runs the bot this reference: ${code(ref)}.`;
}

export const EDIT_FAILED_TEXT =
  ":x: Something went wrong on the bot's side, so your change was not requested. Try again in a minute.";

export const READ_FAILED_TEXT = ':x: Something went wrong while reading the service.';

/** Plain text: why an approval failed when the error is none of the API's. */
export const UNEXPECTED_IN_BOT = 'an unexpected error happened in the bot.';

/** A click whose handling broke off: the change may already have been sent, so say so honestly. */
export function clickFailureText(storeDown: boolean): string {
  const cause = storeDown ? 'its store (Redis) did not answer' : 'it hit an internal error';
  return `:x: The bot could not finish handling your click: ${cause}. If the change had already been sent to ClickHouse Cloud, the bot checks the service and updates the request message once it can; otherwise click again in a minute.`;
}

/**
 * Plain text: why a summary could not be posted (escape it before it enters mrkdwn).
 * `refusedBySlack` is Slack's code when Slack refused the post.
 */
export function summaryFailureReason(error: unknown, refusedBySlack?: string): string {
  if (refusedBySlack !== undefined) return `Slack refused the post (${refusedBySlack}).`;
  if (error instanceof CloudApiError) return `${cloudErrorSentence(error)}${apiReference(error, 'plain')}`;
  return 'the bot hit an internal error.';
}

export function resolutionText(resolution: Exclude<Resolution, { ok: true }>): string {
  const names = resolution.candidates.map((s) => `${bold(s.name)} ${code(s.id)}`).join(', ');
  if (resolution.reason === 'ambiguous') {
    return `:grey_question: ${code(resolution.query)} matches several services: ${names}. Use the service id instead.`;
  }
  const hint = names ? ` Did you mean ${names}?` : ' `list` shows every service.';
  return `:grey_question: No service is called ${code(resolution.query)}.${hint} Quote names that contain spaces.`;
}
