/** `breakglass CHANGE COMMAND`: read as the change it wraps, which must say why and for how long. */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/core/command/parse.js';

describe('parseCommand: breakglass', () => {
  it('wraps the change command with its reason, ticket and duration', () => {
    expect(
      parseCommand(
        'breakglass ip add orders-prod 203.0.113.9 laptop for 1h because "INC-7 dashboards down" ticket INC-7',
      ),
    ).toEqual({
      kind: 'breakglass',
      change: {
        kind: 'change',
        verb: 'ip add',
        service: 'orders-prod',
        intent: { ipAdd: [{ source: '203.0.113.9', description: 'laptop' }] },
        durationMs: 3_600_000,
        reason: 'INC-7 dashboards down',
        ticket: 'INC-7',
      },
    });
  });

  it.each([
    ['breakglass', 'Tell me the change to make'],
    ['breakglass frobnicate orders-prod', '"frobnicate" is not a command I know'],
    ['breakglass show orders-prod', 'breakglass goes before a command that changes a service, not "show"'],
    ['breakglass breakglass ip add orders-prod 203.0.113.9 for 1h because "x"', 'is not a command I know'],
    ['breakglass ip add orders-prod 203.0.113.9 for 1h', 'Break-glass needs a reason that reviewers will read'],
    ['breakglass rename orders-prod orders-main because "x"', 'Break-glass changes are temporary'],
    [
      'breakglass ip add orders-prod 203.0.113.9 for 1h because "x" at 09:00',
      'Break-glass applies at once, so it takes no at TIME',
    ],
  ])('%s is refused in a sentence', (text, words) => {
    const command = parseCommand(text);
    expect(command.kind).toBe('invalid');
    if (command.kind === 'invalid') expect(command.message).toContain(words);
  });

  it("passes the wrapped command's own problems through", () => {
    const command = parseCommand('breakglass ip add orders-prod not-an-ip for 1h because "x"');
    expect(command).toMatchObject({ kind: 'invalid', usage: expect.stringContaining('ip add') as unknown });
  });
});
