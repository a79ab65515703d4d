/**
 * Wall clocks in IANA time zones through Intl (no library): one cached formatter per zone, giving
 * every part as a number in 24-hour time. Shared by `at TIME` (command/when.ts) and maintenance
 * windows (policy/window.ts).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The formatter of `zone`'s wall clock (year, month, day, hour 0-23, minute, second). */
export function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}
