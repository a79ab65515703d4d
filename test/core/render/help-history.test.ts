import { describe, expect, it } from 'vitest';
import { COMMAND_CATALOGUE } from '../../../src/core/command/catalogue.js';
import { helpBlocks, invalidBlocks } from '../../../src/core/render/help.js';
import { historyBlocks } from '../../../src/core/render/history.js';
import type { AuditAction } from '../../../src/core/change/audit.js';
import { auditEntry, NOW } from '../fixtures.js';
import { allTexts, assertBlockKitLimits, assertSafeMrkdwn, mrkdwnTexts } from './block-kit.js';

const REACH = { beginsAt: Date.parse('2025-10-20T00:00:00Z'), retentionDays: 400 };

describe('helpBlocks', () => {
  it('lists every command with the configured slash command, within limits', () => {
    const blocks = helpBlocks('/ch');
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    for (const command of COMMAND_CATALOGUE) {
      expect(text).toContain(`\`/ch ${command.usage}\``);
      expect(text).toContain(`\`/ch ${command.example}\``);
    }
    expect(allTexts(blocks)).toContain('ClickHouse Cloud bot');
  });

  it('puts a lead sentence first when given', () => {
    const blocks = helpBlocks('/clickhouse', 'I did not understand *that*.');
    expect(mrkdwnTexts(blocks)[0]).toBe('I did not understand *that*.');
  });

  it('renders no lead block without a lead', () => {
    expect(mrkdwnTexts(helpBlocks('/clickhouse'))[0]).toMatch(/^`\/clickhouse help`/);
  });
});

describe('invalidBlocks', () => {
  it('quotes the problem escaped and the usage as code', () => {
    const blocks = invalidBlocks('/clickhouse', 'Unknown word <!channel> & more', 'rename SERVICE NEW NAME...');
    assertBlockKitLimits(blocks, { max: 50 });
    assertSafeMrkdwn(blocks);
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toContain(
      ':warning: Unknown word &lt;!channel&gt; &amp; more\nUsage: `/clickhouse rename SERVICE NEW NAME...`',
    );
    expect(text).toContain('`/clickhouse help` lists every command.');
  });
});

describe('historyBlocks', () => {
  it('does not name whoever noticed an expiry as the one who expired the request', () => {
    const [expired] = mrkdwnTexts(historyBlocks([auditEntry({ action: 'expired', actorId: 'U0CLICKER' })], REACH));
    expect(expired).toContain('expired');
    expect(expired).not.toContain('U0CLICKER');
    const [rejected] = mrkdwnTexts(historyBlocks([auditEntry({ action: 'rejected', actorId: 'U0APPROVER' })], REACH));
    expect(rejected).toContain('rejected by <@U0APPROVER>');
  });

  it('does not name the approver whose click found a request stale as its cause', () => {
    const [stale] = mrkdwnTexts(historyBlocks([auditEntry({ action: 'stale', actorId: 'U0APPROVER' })], REACH));
    expect(stale).toContain('not applied, found stale');
    expect(stale).not.toContain('U0APPROVER');
  });

  it('says nothing is recorded yet, naming the service', () => {
    const since = '<!date^1760918400^{date_short_pretty} at {time}|2025-10-20T00:00:00.000Z>';
    expect(mrkdwnTexts(historyBlocks([], REACH, 'orders-prod'))).toStrictEqual([
      `*History of orders-prod*\nNo change request for orders-prod was made in this channel within the record, which goes back to ${since} (entries are kept 400 days).`,
    ]);
    expect(mrkdwnTexts(historyBlocks([], { beginsAt: undefined, retentionDays: 30 }))).toStrictEqual([
      '*Recent change history*\nNo change request was made in this channel within the record, which is empty so far (entries are kept 30 days).',
    ]);
  });

  it('shows each entry with icon, time, service, action, actor, change id and details', () => {
    const blocks = historyBlocks(
      [auditEntry({ action: 'failed', message: 'It broke', apiRequestId: 'req-7', actorId: 'U0APPROVER' })],
      REACH,
      'orders-prod',
    );
    expect(allTexts(blocks)).toContain('History of orders-prod');
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toMatch(
      /^:x: <!date\^\d+\^[^|]+\|2025-01-15T12:00:00.000Z> \*orders-prod\* `a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d` failed by <@U0APPROVER> `cr-0001`/,
    );
    expect(text).toContain('\n      Name: orders-prod → orders-main · _It broke_ · API request `req-7`');
  });

  it.each([
    ['requested', ':memo:'],
    ['approved', ':thumbsup:'],
    ['applied', ':white_check_mark:'],
    ['failed', ':x:'],
    ['stale', ':warning:'],
    ['rejected', ':no_entry:'],
    ['cancelled', ':heavy_multiplication_x:'],
    ['expired', ':hourglass_flowing_sand:'],
  ] as const satisfies ReadonlyArray<readonly [AuditAction, string]>)('marks %s with %s', (action, icon) => {
    expect(mrkdwnTexts(historyBlocks([auditEntry({ action })], REACH))[0]?.startsWith(icon)).toBe(true);
  });

  it('leaves out the detail line when there is no detail', () => {
    expect(mrkdwnTexts(historyBlocks([auditEntry({ summary: '' })], REACH))[0]).not.toContain('\n');
  });

  it('keeps 1,000 long entries within Slack limits and counts the older ones', () => {
    const entries = Array.from({ length: 1000 }, (_, i) =>
      auditEntry({
        id: `${i}-0`,
        at: NOW - i * 60_000,
        changeId: `cr-${i}`,
        summary: 's'.repeat(400),
        message: 'm'.repeat(200),
      }),
    );
    const blocks = historyBlocks(entries, REACH, 'orders-prod');
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    const shown = (text.match(/^:memo:/gm) ?? []).length;
    const hidden = Number(/…and (\d+) older entries/.exec(text)?.[1] ?? 0);
    expect(shown + hidden).toBe(1000);
  });

  it('never lets names, summaries or messages ping or link', () => {
    const hostile = '<!channel> @here <@U123> <http://evil|click> & `tick` *star*';
    const blocks = historyBlocks(
      [
        auditEntry({
          serviceName: hostile,
          summary: hostile,
          message: hostile,
          apiRequestId: hostile,
          changeId: hostile,
          actorId: hostile,
        }),
      ],
      REACH,
      hostile,
    );
    assertSafeMrkdwn(blocks);
    assertSafeMrkdwn(historyBlocks([], REACH, hostile));
  });
});
