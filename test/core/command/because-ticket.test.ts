/**
 * `because "TEXT"` and `ticket ID` anywhere after a change command's arguments (issue 25). Taken
 * out before the command's own parser runs, so they never become a description, a name or a
 * duration; `because` takes exactly one quoted word and never swallows a service or `for DURATION`.
 */
import { describe, expect, it } from 'vitest';
import { parseCommand, type Command } from '../../../src/core/command/parse.js';
import { REASON_MAX_LENGTH } from '../../../src/core/policy/justification.js';

const HOUR = 3_600_000;

function change(text: string): Extract<Command, { kind: 'change' }> {
  const command = parseCommand(text);
  if (command.kind !== 'change') throw new Error(`expected a change from ${text}, got ${JSON.stringify(command)}`);
  return command;
}

function refusalOf(text: string): string {
  const command = parseCommand(text);
  if (command.kind !== 'invalid') throw new Error(`expected a refusal of ${text}, got ${JSON.stringify(command)}`);
  return command.message;
}

describe('because "TEXT" and ticket ID', () => {
  it.each([
    'ip add svc 10.0.0.1 office VPN because "INC-7 hotfix" ticket OPS-12 for 2h',
    'ip add svc 10.0.0.1 office VPN ticket OPS-12 because "INC-7 hotfix" for 2h',
    'ip add svc 10.0.0.1 office VPN for 2h because "INC-7 hotfix" ticket OPS-12',
    'ip add svc 10.0.0.1 because "INC-7 hotfix" office VPN for 2h ticket OPS-12',
    'ip add svc 10.0.0.1 ticket OPS-12 office because “INC-7 hotfix” VPN for 2 hours',
    'IP ADD svc 10.0.0.1 office VPN BECAUSE "INC-7 hotfix" TICKET OPS-12 FOR 2h',
  ])('reads both in any position after the arguments: %s', (text) => {
    expect(change(text)).toStrictEqual({
      kind: 'change',
      service: 'svc',
      verb: 'ip add',
      intent: { ipAdd: [{ source: '10.0.0.1', description: 'office VPN' }] },
      durationMs: 2 * HOUR,
      reason: 'INC-7 hotfix',
      ticket: 'OPS-12',
    });
  });

  it.each([
    ['rename svc new-name because "naming scheme"', { reason: 'naming scheme' }],
    ['ip remove svc 10.0.0.1 ticket OPS-1', { ticket: 'OPS-1' }],
    ['endpoint svc mysql on because "debugging" for 1h', { reason: 'debugging' }],
    ['release-channel svc fast ticket CHG-9', { ticket: 'CHG-9' }],
    ['private-endpoint attach svc vpce-1 because "new VPC"', { reason: 'new VPC' }],
    ['rotate-key svc key-2 ticket SEC-4 because "yearly rotation"', { reason: 'yearly rotation', ticket: 'SEC-4' }],
    ['tag add svc env=prod because "inventory"', { reason: 'inventory' }],
    [
      'scale svc replicas 3 because "load" ticket OPS-1',
      { reason: 'load', ticket: 'OPS-1', intent: { replicas: { min: 3, max: 3 } } },
    ],
    ['stop svc because "night" for 2h', { reason: 'night', durationMs: 2 * HOUR }],
    ['idle svc on because "save"', { reason: 'save' }],
    ['start svc for 2h ticket OPS-3', { ticket: 'OPS-3', durationMs: 2 * HOUR }],
    ['wake svc ticket OPS-2', { ticket: 'OPS-2' }],
  ])('works with every change command: %s', (text, expected) => {
    expect(change(text)).toMatchObject(expected);
  });

  it('never reads the service as the keyword, nor quoted words, nor words inside other words', () => {
    expect(change('rename because new-name ticket A-1')).toMatchObject({ service: 'because', ticket: 'A-1' });
    expect(change('ip add ticket 10.0.0.1')).toMatchObject({ service: 'ticket' });
    expect(change('ip add svc 10.0.0.1 "because of VPN"')).toMatchObject({
      intent: { ipAdd: [{ source: '10.0.0.1', description: 'because of VPN' }] },
    });
    expect(change('ip add svc 10.0.0.1 because-VPN')).not.toHaveProperty('reason');
    expect(change('tag add svc ticket=OPS-1')).toMatchObject({
      intent: { tagAdd: [{ key: 'ticket', value: 'OPS-1' }] },
    });
    const plain = change('rename svc new-name');
    expect(plain).not.toHaveProperty('reason');
    expect(plain).not.toHaveProperty('ticket');
  });

  it('refuses an unquoted reason, showing it quoted, without swallowing a for DURATION', () => {
    expect(refusalOf('ip add svc 10.0.0.1 because office move for 2h')).toContain(
      'Put the reason after because in quotes, like because "office move"',
    );
    expect(refusalOf('rename svc x because hotfix')).toContain('because "hotfix"');
  });

  it('refuses a missing, empty, repeated or too long reason, and a missing or malformed ticket', () => {
    expect(refusalOf('rename svc x because')).toContain('not followed by a reason');
    expect(refusalOf('rename svc x because ""')).toContain('The reason is empty');
    expect(refusalOf('rename svc x because "a" because "b"')).toContain('Give one reason');
    expect(refusalOf(`rename svc x because "${'y'.repeat(REASON_MAX_LENGTH + 1)}"`)).toContain('keep it to');
    expect(refusalOf('rename svc x ticket')).toContain('not followed by its id');
    expect(refusalOf('rename svc x ticket "OPS 1"')).toContain('without spaces');
    expect(refusalOf('rename svc x ticket A-1 ticket B-2')).toContain('Give one ticket');
  });

  it('refuses them with a command that requests no change', () => {
    expect(refusalOf('show svc because "curious"')).toContain(
      'because goes with commands that request a change, not with show',
    );
    expect(refusalOf('edit svc ticket OPS-1')).toContain('The edit form has Reason and Ticket fields.');
    expect(refusalOf('history svc ticket OPS-1')).toContain('not with history');
  });
});
