/** The zone `at TIME` is read in: the channel's, else the requester's Slack zone, else UTC. */
import { describe, expect, it } from 'vitest';
import { timeZoneResolver } from '../../src/commands/time-zone.js';
import { RecordingMessenger } from '../support/recording-messenger.js';

describe('the time zone of at TIME', () => {
  it('takes the channel’s zone first, then the requester’s own, then UTC', async () => {
    const messenger = new RecordingMessenger();
    messenger.timeZones.set('U-BERLINER', 'Europe/Berlin');
    const warnings: string[] = [];
    const zoneOf = timeZoneResolver({ C0OPS: 'America/New_York' }, messenger, {
      warn: (line: string) => warnings.push(line),
    });
    expect(await zoneOf('C0OPS', 'U-BERLINER')).toEqual({ zone: 'America/New_York', source: 'channel' });
    expect(await zoneOf('C0DEV', 'U-BERLINER')).toEqual({ zone: 'Europe/Berlin', source: 'requester' });
    expect(await zoneOf('C0DEV', 'U-NOBODY')).toEqual({ zone: 'UTC', source: 'default' });
    expect(warnings).toEqual([]);
  });

  it('a Slack that does not answer (no users:read scope) or names no zone it knows means UTC, logged', async () => {
    const warnings: string[] = [];
    const failing = { userTimeZone: () => Promise.reject(new Error('Slack users.info failed: missing_scope')) };
    const zoneOf = timeZoneResolver({}, failing, { warn: (line: string) => warnings.push(line) });
    expect(await zoneOf('C0DEV', 'U1')).toEqual({ zone: 'UTC', source: 'default' });
    expect(warnings).toEqual(["could not read U1's time zone: Slack users.info failed: missing_scope"]);
    const odd = timeZoneResolver(
      {},
      { userTimeZone: () => Promise.resolve('Mars/Olympus') },
      { warn: () => undefined },
    );
    expect(await odd('C0DEV', 'U1')).toEqual({ zone: 'UTC', source: 'default' });
  });
});
