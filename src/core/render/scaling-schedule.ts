/** `scaling-schedule SERVICE`: its entries in UTC, the one in force now, and the base configuration. */
import { scalingText, type ScalingSchedule, type ScheduleEntry } from '../service/scaling-schedule.js';
import type { ServiceRecord } from '../service/schema.js';
import { daysText } from '../time/weekly.js';
import { esc, header, section, serviceRef, serviceRefPlain, type Block } from './mrkdwn.js';

const hour = (h: number) => `${String(h).padStart(2, '0')}:00`;

function entryLine(entry: ScheduleEntry): string {
  const now = entry.isActiveNow ? ' · *in force now*' : '';
  return `• *${esc(entry.name)}* ${daysText(entry.weekdays)} ${hour(entry.startHourUtc)}–${hour(entry.endHourUtc)} UTC · ${scalingText(entry)}${now}`;
}

export type ScheduleReading =
  { kind: 'schedule'; schedule: ScalingSchedule } | { kind: 'none' } | { kind: 'not-enabled' };

export function scalingScheduleBlocks(service: ServiceRecord, reading: ScheduleReading): Block[] {
  const title = header(`Scaling schedule of ${serviceRefPlain(service.name, service.id)}`);
  const who = serviceRef(service.name, service.id);
  if (reading.kind === 'not-enabled')
    return [
      title,
      section(
        `${who}\nThis organization does not have scheduled autoscaling (a beta feature ClickHouse enables per organization; the API answered 403).`,
      ),
    ];
  if (reading.kind === 'none' || reading.schedule.entries.length === 0)
    return [title, section(`${who}\nNo scaling schedule: it runs on its own configuration at all times.`)];
  const { entries, baseConfig } = reading.schedule;
  const active = entries.find((entry) => entry.isActiveNow);
  const lines = [
    ...entries.map(entryLine),
    active
      ? `Now: ${scalingText(active)} (schedule ${esc(active.name)} until ${hour(active.endHourUtc)} UTC)`
      : 'Now: the base configuration (no entry is in force).',
    `Base: ${scalingText(baseConfig)}`,
  ];
  return [title, section(`${who}\n${lines.join('\n')}`)];
}
