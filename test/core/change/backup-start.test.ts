/** `backup-config … at HH:MM`: the UTC time kept, and the note wherever the zone moves its clocks. */
import { describe, expect, it } from 'vitest';
import { startInUtc } from '../../../src/core/change/kinds/backup-config.js';

const on = (day: string) => Date.parse(`${day}T12:00:00Z`);

describe('startInUtc', () => {
  it('notes the other season even when the day half a year on is still in summer time', () => {
    // Berlin keeps summer time seven months: from 10 April, half a year on is still summer time.
    const berlin = startInUtc('09:00', 'Europe/Berlin', on('2026-04-10'));
    expect(berlin).toMatchObject({ utc: '07:00' });
    expect('note' in berlin ? berlin.note : '').toContain('start at 08:00 local time');
    const newYork = startInUtc('09:00', 'America/New_York', on('2026-04-20'));
    expect(newYork).toMatchObject({ utc: '13:00' });
    expect('note' in newYork ? newYork.note : '').toContain('start at 08:00 local time');
    expect(startInUtc('09:00', 'Europe/Berlin', on('2026-01-10'))).toMatchObject({ utc: '08:00' });
  });

  it('adds no note where the clocks never move', () => {
    expect(startInUtc('09:00', 'Asia/Tokyo', on('2026-04-10'))).toStrictEqual({ utc: '00:00' });
    expect(startInUtc('09:00', 'UTC', on('2026-04-10'))).toStrictEqual({ utc: '09:00' });
  });
});
