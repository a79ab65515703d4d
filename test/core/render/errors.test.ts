import { describe, expect, it } from 'vitest';
import { CloudApiError, type CloudErrorKind } from '../../../src/core/service/api-error.js';
import { apiReference, cloudErrorSentence, cloudErrorText, resolutionText } from '../../../src/core/render/errors.js';
import { service } from '../fixtures.js';
import { unsafeMrkdwn } from './block-kit.js';

const httpError = (status: number, requestId?: string, apiMessage?: string) =>
  new CloudApiError('http', `HTTP ${status}`, {
    status,
    ...(requestId ? { requestId } : {}),
    ...(apiMessage ? { apiMessage } : {}),
  });

describe('cloudErrorText', () => {
  it.each([
    [400, 'refused the request as invalid'],
    [401, 'CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET'],
    [403, 'not allowed to do this'],
    [404, 'does not know this service or organization'],
    [409, 'the service is busy with another change'],
    [422, 'answered with an error'],
    [500, 'internal error'],
    [503, 'internal error'],
  ])('explains HTTP %i and gives the status and request id', (status, phrase) => {
    const text = cloudErrorText(httpError(status, 'req-abc'), 'Updating orders-prod');
    expect(text.startsWith(':x: Updating orders-prod failed: ')).toBe(true);
    expect(text).toContain(phrase);
    expect(text).toContain(`(status ${status}, request id \`req-abc\`)`);
  });

  it('quotes the API’s own message, escaped', () => {
    const text = cloudErrorText(
      httpError(400, 'req-1', "BAD_REQUEST: request body.name: '<!channel>' & more"),
      'Renaming',
    );
    expect(text).toContain('It said: "BAD_REQUEST: request body.name: \'&lt;!channel&gt;\' &amp; more".');
    expect(unsafeMrkdwn(text)).toStrictEqual([]);
  });

  it.each([
    ['timeout', 'did not answer in time'],
    ['network', 'could not reach ClickHouse Cloud'],
    ['rate-limited', 'rate limit (10 requests per 10 seconds'],
    ['bad-response', 'could not read'],
  ] as const satisfies ReadonlyArray<readonly [CloudErrorKind, string]>)(
    'explains a %s in a sentence',
    (kind, phrase) => {
      const error = new CloudApiError(kind, 'internal detail', {});
      const text = cloudErrorText(error, 'Listing services');
      expect(text).toContain(phrase);
      expect(text).not.toContain('internal detail');
      expect(text).not.toContain('(status');
    },
  );

  it('gives the status and request id of a rate-limited or bad response when known', () => {
    expect(
      cloudErrorText(new CloudApiError('rate-limited', 'x', { status: 429, requestId: 'req-rl' }), 'Listing'),
    ).toContain('(status 429, request id `req-rl`)');
    expect(cloudErrorText(new CloudApiError('bad-response', 'x', { status: 200 }), 'Listing')).toContain(
      '(status 200)',
    );
  });

  it('uses the message of a request refused before sending', () => {
    const text = cloudErrorText(
      new CloudApiError('invalid-request', 'The tag filter tag:a b is not valid', {}),
      'Listing',
    );
    expect(text).toBe(':x: Listing failed: The tag filter tag:a b is not valid.');
  });

  it('leaves out the reference when there is neither status nor request id', () => {
    expect(apiReference(new CloudApiError('timeout', 'x'))).toBe('');
    expect(apiReference(httpError(500))).toBe(' (status 500)');
    expect(apiReference(new CloudApiError('network', 'x', { requestId: 'req-2' }))).toBe(' (request id `req-2`)');
  });

  it('escapes what the bot was doing and a hostile request id', () => {
    const text = cloudErrorText(httpError(500, '<!here>`x'), 'Renaming <!channel>');
    expect(unsafeMrkdwn(text)).toStrictEqual([]);
    expect(text).toContain('request id `&lt;!here&gt;ʼx`');
  });

  it('keeps the plain sentence for the stored outcome unescaped', () => {
    expect(cloudErrorSentence(httpError(400, undefined, 'a & b'))).toBe(
      'ClickHouse Cloud refused the request as invalid. It said: "a & b".',
    );
  });
});

describe('resolutionText', () => {
  const a = service({ id: '11111111-0000-4000-8000-000000000001', name: 'shared' });
  const b = service({ id: '22222222-0000-4000-8000-000000000002', name: 'shared' });

  it('lists the candidates of an ambiguous name with their ids', () => {
    const text = resolutionText({ ok: false, reason: 'ambiguous', query: 'shared', candidates: [a, b] });
    expect(text).toBe(
      ':grey_question: `shared` matches several services: *shared* `11111111-0000-4000-8000-000000000001`, *shared* `22222222-0000-4000-8000-000000000002`. Use the service id instead.',
    );
  });

  it('suggests similar services when nothing matches', () => {
    const text = resolutionText({ ok: false, reason: 'not-found', query: 'share', candidates: [a] });
    expect(text).toContain(
      'No service is called `share`. Did you mean *shared* `11111111-0000-4000-8000-000000000001`?',
    );
  });

  it('points to list when nothing is similar', () => {
    expect(resolutionText({ ok: false, reason: 'not-found', query: 'zzz', candidates: [] })).toContain(
      '`list` shows every service.',
    );
  });

  it('escapes the query and candidate names', () => {
    const hostile = '<!channel> @here <@U123> <http://evil|click> & `tick` *star*';
    const text = resolutionText({
      ok: false,
      reason: 'not-found',
      query: hostile,
      candidates: [service({ name: hostile })],
    });
    expect(unsafeMrkdwn(text)).toStrictEqual([]);
  });
});
