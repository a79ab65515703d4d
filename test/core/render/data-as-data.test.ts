/**
 * What an approver sees of data is the data: a service named with a bidi override cannot reverse
 * the rest of the line, a zero-width space cannot make `events\u200B-prod` pass for
 * `events-prod`, and `*bold*`, `_italic_`, `~strike~` or `:emoji:` typed into a name or an IP
 * description does not format in show, pending, history, the request itself or summaries.
 */
import { describe, expect, it } from 'vitest';
import { pendingBlocks, requestMessage } from '../../../src/core/render/change.js';
import { historyBlocks } from '../../../src/core/render/history.js';
import { code, esc, header, visible } from '../../../src/core/render/mrkdwn.js';
import { serviceBlocks } from '../../../src/core/render/service.js';
import { reminderMessage, scheduledRevertMessage } from '../../../src/core/render/temporary.js';
import { serviceSummaryLine } from '../../../src/core/summary/render.js';
import { auditEntry, changeRequest, mustPlan, NOW, service, SERVICE_ID } from '../fixtures.js';
import { allTexts, mrkdwnTexts } from './block-kit.js';

const NAME = '\u202Eevents\u200B-prod _it_ ~gone~ :fire:';
const DESCRIPTION = '*:white_check_mark: reviewed by security*';
const REACH = { beginsAt: NOW - 86_400_000, retentionDays: 400 };
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

/** What Slack would format, outside the code spans (where nothing formats). */
function formatted(text: string): string[] {
  const outside = text.replace(/`[^`]*`/g, '');
  return [':fire:', ':white_check_mark:', '_it_', '~gone~', '*:white'].filter((mark) => outside.includes(mark));
}

function renderings(): Array<[string, string[]]> {
  const record = service({ name: NAME, ipAccessList: [{ source: '10.0.0.0/8', description: DESCRIPTION }] });
  const plan = mustPlan(record, { ipAdd: [{ source: '192.0.2.1', description: DESCRIPTION }] });
  const request = changeRequest(plan);
  return [
    ['show', mrkdwnTexts(serviceBlocks(record))],
    ['pending', mrkdwnTexts(pendingBlocks([request]))],
    ['history', mrkdwnTexts(historyBlocks([auditEntry({ serviceName: NAME, summary: DESCRIPTION })], REACH))],
    ['request', [...mrkdwnTexts(requestMessage(request).blocks), requestMessage(request).text]],
    ['summary', [serviceSummaryLine(record)]],
  ];
}

describe('data shown as data', () => {
  it('shows bidi overrides and zero-width characters by their code point, in mrkdwn and in headers', () => {
    expect(esc('events\u200B-prod')).toBe('events[U+200B]-prod');
    expect(code('\u202Eorp-stneve')).toBe('`[U+202E]orp-stneve`');
    expect(visible('a\u2066b\u2069c\uFEFF')).toBe('a[U+2066]b[U+2069]c[U+FEFF]');
    expect(header(`Change request: ${NAME}`)).toMatchObject({
      text: { text: 'Change request: [U+202E]events[U+200B]-prod _it_ ~gone~ :fire:', emoji: false },
    });
    for (const [where, texts] of renderings())
      for (const text of texts)
        expect(INVISIBLE.test(text.replace(/@\u200B(channel|here|everyone)/g, '')), where).toBe(false);
  });

  it('lets nothing typed into a name or a description format, wherever it is shown', () => {
    for (const [where, texts] of renderings()) {
      const joined = texts.join('\n');
      expect(formatted(joined), where).toEqual([]);
      // `show` names the service in its header (plain text, checked above).
      if (where !== 'show') expect(joined, where).toContain('[U+202E]events[U+200B]-prod');
    }
    expect(esc(DESCRIPTION)).toBe('∗꞉white_check_mark꞉ reviewed by security∗');
    expect(esc('events_prod _it_ ~x~')).toBe('events_prod ＿it＿ ∼x∼');
  });

  it('shows the service id next to its name in the request, the pending list and the history', () => {
    const plan = mustPlan(service(), { name: 'orders-main' });
    const request = changeRequest(plan);
    expect(allTexts(requestMessage(request).blocks).split('\n')[0]).toBe(`Change request: orders-prod (${SERVICE_ID})`);
    expect(mrkdwnTexts(requestMessage(request).blocks).join('\n')).toContain(`*orders-prod* \`${SERVICE_ID}\``);
    expect(requestMessage(request).text).toContain(`orders-prod (${SERVICE_ID})`);
    expect(mrkdwnTexts(pendingBlocks([request])).join('\n')).toContain(`*orders-prod* \`${SERVICE_ID}\``);
    expect(mrkdwnTexts(historyBlocks([auditEntry()], REACH)).join('\n')).toContain(`*orders-prod* \`${SERVICE_ID}\``);
    // A long name is cut, never the id.
    const long = changeRequest(mustPlan(service({ name: 'x'.repeat(300) }), { name: 'short' }));
    expect(allTexts(requestMessage(long).blocks).split('\n')[0]).toMatch(new RegExp(`… \\(${SERVICE_ID}\\)$`));
  });
});

describe('notification texts', () => {
  it("keep the bot's own date token as a token in reminders and revert notices", () => {
    const request = changeRequest(mustPlan(service(), { name: 'orders-main' }), { id: 'cr-<b>' });
    const due = NOW + 3_600_000;
    for (const message of [
      reminderMessage(request, due),
      scheduledRevertMessage(request, due, false),
      scheduledRevertMessage(request, due, true),
    ]) {
      expect(message.text).toMatch(/<!date\^\d+\^[^|]+\|[^>]+>/);
      expect(message.text).not.toContain('&lt;!date');
      expect(message.text).toContain('cr-&lt;b&gt;');
    }
  });
});
