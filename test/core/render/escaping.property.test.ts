/**
 * Property-style: a few hundred generated strings made of Slack's dangerous fragments, used as
 * names, descriptions, tags and API messages, must never ping, link or break the bot's formatting.
 */
import { describe, expect, it } from 'vitest';
import { CloudApiError } from '../../../src/core/service/api-error.js';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import type { ChangePlan } from '../../../src/core/change/types.js';
import { changeRequestBlocks, outcomeText, pendingBlocks } from '../../../src/core/render/change.js';
import { cloudErrorSentence, cloudErrorText, resolutionText } from '../../../src/core/render/errors.js';
import { historyBlocks } from '../../../src/core/render/history.js';
import { listBlocks, serviceBlocks, serviceLine } from '../../../src/core/render/service.js';
import { prng } from '../../support/random.js';
import { auditEntry, changeRequest, mustPlan, NOW, service } from '../fixtures.js';
import { mrkdwnTexts, unsafeMrkdwn } from './block-kit.js';

const REACH = { beginsAt: Date.parse('2025-10-20T00:00:00Z'), retentionDays: 400 };

const FRAGMENTS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '@channel',
  '@here',
  '@everyone',
  '<@U123>',
  '<#C123>',
  '<http://evil|click>',
  '<https://x.y>',
  '&',
  '&amp;',
  '&lt;',
  '`',
  '```',
  '*',
  '_',
  '~',
  '>',
  '<',
  '|',
  ' ',
  'orders',
  'prod',
  '-',
  '🚀',
  '\n',
];
const REQUESTER = 'U0REQUESTER';
const APPROVER = 'U0APPROVER';

function hostileStrings(count: number, seed: number): string[] {
  const { next } = prng(seed);
  return Array.from({ length: count }, () => {
    const parts = 1 + Math.floor(next() * 6);
    return Array.from({ length: parts }, () => FRAGMENTS[Math.floor(next() * FRAGMENTS.length)] ?? '').join('');
  });
}

const STRINGS = hostileStrings(300, 20250115);

function hostileService(text: string, i: number): ServiceRecord {
  return service({
    id: `${String(i).padStart(8, '0')}-${text}`,
    name: text,
    state: text,
    clickhouseVersion: text,
    ipAccessList: [
      { source: '10.0.0.0/8', description: text },
      { source: text, description: text },
    ],
    privateEndpointIds: [text],
    availablePrivateEndpointIds: [text, `${text}-2`],
    transparentDataEncryptionKeyId: text,
    tags: [{ key: text, value: text }],
  });
}

/** A plan as stored, carrying hostile data wherever data can reach it. */
function hostilePlan(text: string): ChangePlan {
  const record = service({ name: text, ipAccessList: [{ source: '10.0.0.0/8', description: text }] });
  const plan = mustPlan(record, {
    name: 'clean-name',
    ipAdd: [{ source: '192.0.2.1', description: text.slice(0, 255) || 'x' }],
    ipRemove: ['10.0.0.0/8'],
  });
  return { ...plan, serviceId: text || 'id' };
}

/** Code spans in a mrkdwn text are balanced: data never opens or closes one. */
const backticksBalanced = (text: string) => (text.match(/`/g) ?? []).length % 2 === 0;

function problemsIn(texts: string[], what: string, allowed: readonly string[] = [REQUESTER, APPROVER]): string[] {
  return texts.flatMap((text) => unsafeMrkdwn(text, allowed).map((p) => `${what}: ${p}`));
}

describe.each(STRINGS.map((text, i) => ({ text, i })))('hostile string #$i', ({ text, i }) => {
  it('cannot ping or link from any rendering', () => {
    const record = hostileService(text, i);
    const plan = hostilePlan(text);
    const pending = changeRequest(plan, { id: text || 'cr' });
    const failed = changeRequest(plan, {
      status: 'failed',
      decidedBy: APPROVER,
      decidedAt: NOW,
      outcome: { message: text, apiRequestId: text, status: 400 },
    });
    const error = new CloudApiError('http', text, { status: 400, apiMessage: text, requestId: text });
    const problems = [
      ...problemsIn(mrkdwnTexts(listBlocks([record, service()], [text], NOW)), 'listBlocks'),
      ...problemsIn(mrkdwnTexts(serviceBlocks(record)), 'serviceBlocks'),
      ...problemsIn(mrkdwnTexts(changeRequestBlocks(pending)), 'changeRequestBlocks pending'),
      ...problemsIn(mrkdwnTexts(changeRequestBlocks(failed)), 'changeRequestBlocks failed'),
      ...problemsIn(mrkdwnTexts(pendingBlocks([pending])), 'pendingBlocks'),
      ...problemsIn(
        mrkdwnTexts(
          historyBlocks(
            [
              auditEntry({
                serviceName: text,
                summary: text,
                message: text,
                apiRequestId: text,
                changeId: text,
                actorId: APPROVER,
              }),
            ],
            REACH,
            text,
          ),
        ),
        'historyBlocks',
      ),
      ...problemsIn([cloudErrorText(error, text)], 'cloudErrorText'),
      ...problemsIn(
        [resolutionText({ ok: false, reason: 'not-found', query: text, candidates: [record] })],
        'resolutionText not-found',
      ),
      ...problemsIn(
        [resolutionText({ ok: false, reason: 'ambiguous', query: text, candidates: [record, record] })],
        'resolutionText ambiguous',
      ),
    ];
    expect(problems).toStrictEqual([]);
  });

  it('as a name or id, cannot break bold or code formatting', () => {
    const record = service({ id: `${i}${text}`, name: text });
    const line = serviceLine(record);
    expect(backticksBalanced(line)).toBe(true);
    if (text.trim() !== '') expect(line.slice(0, line.indexOf('*  `') + 1)).toMatch(/^\*[^*`]*\*$/);
    const texts = [
      ...mrkdwnTexts(listBlocks([record], [], NOW)),
      ...mrkdwnTexts(serviceBlocks(record)),
      ...mrkdwnTexts(
        changeRequestBlocks(
          changeRequest({ ...mustPlan(service(), { name: 'clean' }), serviceName: text, serviceId: text || 'id' }),
        ),
      ),
      ...mrkdwnTexts(historyBlocks([auditEntry({ serviceName: text, changeId: text })], REACH)),
      resolutionText({ ok: false, reason: 'ambiguous', query: text, candidates: [record, record] }),
    ];
    expect(texts.filter((t) => !backticksBalanced(t))).toStrictEqual([]);
  });
});

describe('free text next to the bot’s own formatting', () => {
  it('an API message with a stray backtick does not swallow the approver mention and date of a failed request', () => {
    const message = cloudErrorSentence(
      new CloudApiError('http', 'HTTP 400', { status: 400, apiMessage: 'BAD_REQUEST: unexpected ` in name' }),
    );
    const text = outcomeText(
      changeRequest(mustPlan(service(), { name: 'x' }), {
        status: 'failed',
        decidedBy: APPROVER,
        decidedAt: NOW,
        outcome: { message, status: 400, apiRequestId: 'req-1' },
      }),
    );
    expect(backticksBalanced(text)).toBe(true);
  });
});
