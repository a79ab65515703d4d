/** Slack's v0 request signature, checked by the acknowledging thread without Bolt's internals. */
import { describe, expect, it } from 'vitest';
import { slackSignatureHeaders } from '../../src/playground/signing.js';
import { signatureHeadersProblem, signatureMatches } from '../../src/slack/ack-thread/slack-signature.js';

const SECRET = 'signature-test-secret';
const NOW = 1_800_000_000;
const body = 'command=%2Fclickhouse&text=list';

function check(headers: Record<string, string>, raw = body, now = NOW, secret = SECRET) {
  const given = signatureHeadersProblem(headers, now);
  if (!given.ok) return given.problem;
  return signatureMatches(secret, given.headers, Buffer.from(raw)) ? 'valid' : 'mismatch';
}

describe("Slack's v0 signature", () => {
  it('accepts the signature Slack computes (HMAC-SHA256 of v0:timestamp:body)', () => {
    expect(check(slackSignatureHeaders(body, SECRET, String(NOW)))).toBe('valid');
  });

  it('accepts a timestamp up to five minutes either way, and refuses one further', () => {
    for (const offset of [-300, 300])
      expect(check(slackSignatureHeaders(body, SECRET, String(NOW + offset)))).toBe('valid');
    for (const offset of [-301, 301])
      expect(check(slackSignatureHeaders(body, SECRET, String(NOW + offset)))).toBe(
        'the request timestamp is more than 5 minutes from now (stale or replayed)',
      );
  });

  it('refuses a body, a secret or a timestamp other than the one signed', () => {
    const headers = slackSignatureHeaders(body, SECRET, String(NOW));
    expect(check(headers, `${body}&text=delete`)).toBe('mismatch');
    expect(check(headers, body, NOW, 'another-secret')).toBe('mismatch');
    expect(check({ ...headers, 'x-slack-request-timestamp': String(NOW - 1) })).toBe('mismatch');
  });

  it('says what is wrong with headers that cannot be a signature, before any body is looked at', () => {
    const headers = slackSignatureHeaders(body, SECRET, String(NOW));
    expect(check({})).toBe('the request has no Slack signature headers');
    expect(check({ 'x-slack-signature': headers['x-slack-signature'] ?? '' })).toBe(
      'the request has no Slack signature headers',
    );
    expect(check({ ...headers, 'x-slack-request-timestamp': '17e8' })).toBe(
      'the request timestamp (x-slack-request-timestamp) is not a number of seconds',
    );
    for (const signature of ['v1=' + 'a'.repeat(64), 'v0=' + 'a'.repeat(63), 'v0=' + 'g'.repeat(64), ''])
      expect(check({ ...headers, 'x-slack-signature': signature })).toMatch(
        /is not a v0 signature|no Slack signature headers/,
      );
  });
});
