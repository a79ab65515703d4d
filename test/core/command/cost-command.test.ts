import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/core/command/parse.js';

describe('cost', () => {
  it.each([
    ['cost', { kind: 'cost', filters: [], period: '7d' }],
    ['cost 30d', { kind: 'cost', filters: [], period: '30d' }],
    ['cost orders-prod 90D', { kind: 'cost', service: 'orders-prod', filters: [], period: '90d' }],
    ['cost "analytics staging"', { kind: 'cost', service: 'analytics staging', filters: [], period: '7d' }],
    [
      'cost tag:env=prod Tag:team=data 30d',
      { kind: 'cost', filters: ['tag:env=prod', 'tag:team=data'], period: '30d' },
    ],
    // A service named like a period is still reachable, quoted.
    ['cost "7d"', { kind: 'cost', service: '7d', filters: [], period: '7d' }],
  ])('%s', (text, expected) => {
    expect(parseCommand(text)).toEqual(expected);
  });

  it.each([
    ['cost 120d', /longer than I look back: at most 90 days\. Choose 7d, 30d, 90d/],
    ['cost 14d', /I can show spend for 7d, 30d, 90d, not "14d"/],
    ['cost 2w', /not "2w"/],
    ['cost 7d 30d', /one period, not two/],
    ['cost orders-prod tag:env=prod', /either one service or tag filters, not both/],
    ['cost orders-prod events-prod', /one service, so I don't know what to do with "events-prod"/],
    ['cost tag:env=a/b', /not a tag filter I can use/],
  ])('%s is refused in a sentence with the usage', (text, message) => {
    const command = parseCommand(text);
    expect(command.kind).toBe('invalid');
    if (command.kind !== 'invalid') return;
    expect(command.message).toMatch(message);
    expect(command.usage).toBe('cost [SERVICE | tag:KEY[=VALUE] ...] [7d|30d|90d]');
  });
});

describe('schedule add … chart:on', () => {
  it('asks for the chart, anywhere after the cron', () => {
    expect(parseCommand('schedule add "0 9 * * 1" chart:on tag:env=prod')).toEqual({
      kind: 'schedule add',
      cron: '0 9 * * 1',
      filters: ['tag:env=prod'],
      chart: true,
    });
    expect(parseCommand('schedule add "0 9 * * 1" Chart:off')).toEqual({
      kind: 'schedule add',
      cron: '0 9 * * 1',
      filters: [],
    });
  });

  it('refuses a chart word it does not know', () => {
    const command = parseCommand('schedule add "0 9 * * 1" chart:yes');
    expect(command.kind).toBe('invalid');
    if (command.kind === 'invalid')
      expect(command.message).toMatch(/"chart:yes" is not something I know: write chart:on/);
  });
});
