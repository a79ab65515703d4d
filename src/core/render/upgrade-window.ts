/** `upgrade-window SERVICE`: when ClickHouse Cloud may upgrade the service, in UTC and in each reader's own time. */
import { nextWindowStart, type UpgradeWindow } from '../service/upgrade-window.js';
import type { ServiceRecord } from '../service/schema.js';
import { header, section, serviceRef, serviceRefPlain, slackDate, type Block } from './mrkdwn.js';

const WEEKDAYS = ['Sundays', 'Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays'];
const hour = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;

export function upgradeWindowBlocks(service: ServiceRecord, window: UpgradeWindow | undefined, now: number): Block[] {
  const title = header(`Upgrade window of ${serviceRefPlain(service.name, service.id)}`);
  const who = serviceRef(service.name, service.id);
  if (window === undefined)
    return [title, section(`${who}\nNo upgrade window is set: ClickHouse Cloud may upgrade it at any time.`)];
  const start = nextWindowStart(window, now);
  const end = start + window.duration * 3_600_000;
  const utc = upgradeWindowUtcText(window);
  const next = `${start <= now ? 'Open now, until' : `Next: ${slackDate(start, '{date_short_pretty} {time}')} to`} ${slackDate(end, '{time}')} (your time)`;
  return [title, section(`${who}\nUpgrades happen ${utc}.\n${next}.`)];
}

/** "Sundays 00:00–06:00 UTC". */
export function upgradeWindowUtcText(window: UpgradeWindow): string {
  return `${WEEKDAYS[window.weekday] ?? `day ${window.weekday}`} ${hour(window.startHourUtc)}–${hour(window.startHourUtc + window.duration)} UTC`;
}
