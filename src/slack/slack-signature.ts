/**
 * Slack's request signature, version 0: Slack sends `x-slack-request-timestamp` (seconds) and
 * `x-slack-signature` = `v0=` + hex HMAC-SHA256, keyed with the app's signing secret, of
 * `v0:<timestamp>:<raw body>`. A timestamp more than five minutes from now is refused, so a
 * recorded request cannot be replayed later.
 *
 * In two steps, so that a request without fresh signature headers is refused before a byte of its
 * body is read: `signatureHeadersProblem` looks at the headers only (the HTTP receiver's door),
 * `signatureMatches` at the body (Bolt checks it again as it reads the body).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** How far a request's timestamp may be from the clock, either way (Slack's advice: 5 minutes). */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

const SIGNATURE = /^v0=[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

export interface SignatureHeaders {
  timestamp: string;
  signature: string;
}

export type HeadersCheck = { ok: true; headers: SignatureHeaders } | { ok: false; problem: string };

/** The signature headers of a request, or why they cannot be those of a request Slack sent now. */
export function signatureHeadersProblem(headers: IncomingHttpHeaders, nowSeconds: number): HeadersCheck {
  const timestamp = headers['x-slack-request-timestamp'];
  const signature = headers['x-slack-signature'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string')
    return { ok: false, problem: 'the request has no Slack signature headers' };
  if (!TIMESTAMP.test(timestamp))
    return { ok: false, problem: 'the request timestamp (x-slack-request-timestamp) is not a number of seconds' };
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS)
    return { ok: false, problem: 'the request timestamp is more than 5 minutes from now (stale or replayed)' };
  if (!SIGNATURE.test(signature))
    return { ok: false, problem: 'the request signature (x-slack-signature) is not a v0 signature' };
  return { ok: true, headers: { timestamp, signature } };
}

/** Whether `signature` is Slack's v0 signature of `body` sent at `timestamp`, compared in constant time. */
export function signatureMatches(signingSecret: string, headers: SignatureHeaders, body: Buffer): boolean {
  const expected = createHmac('sha256', signingSecret).update(`v0:${headers.timestamp}:`).update(body).digest();
  const given = Buffer.from(headers.signature.slice(3), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
