import { describe, expect, it } from 'vitest';
import { ticketExample } from '../../../src/core/policy/ticket-example.js';

describe('an example ticket id for a rule', () => {
  it('reads the usual pieces of a pattern into an id it accepts', () => {
    expect(ticketExample(['^[A-Z]+-[0-9]+$'])).toBe('OPS-123');
    expect(ticketExample(['^INC[0-9]{7}$'])).toBe('INC1234567');
    expect(ticketExample(['^(OPS|INC)-\\d+$'])).toBe('OPS-123');
    expect(ticketExample(['^[a-z]{2,4}-\\d{1,5}$'])).toBe('ops-123');
    expect(ticketExample(['^JIRA-\\d+(-[a-z]+)?$'])).toBe('JIRA-123');
  });

  it('fits every pattern given, trying usual shapes when the first example does not', () => {
    expect(ticketExample(['^[A-Z]+-[0-9]+$', '^INC-'])).toBe('INC-42');
  });

  it('gives none rather than one that does not match', () => {
    expect(ticketExample(['^(?=Q)Q$'])).toBeUndefined();
    expect(ticketExample(['^a b$'])).toBeUndefined();
  });
});
