/**
 * `show SERVICE`: the record, its upgrade window (one line, "none set"), and, while a scaling
 * schedule's entry is in force, which one and until when (issue 38). Those two reads go out
 * together in the person's lane; either failing costs only its own line, never the record.
 */
import { currentCapacity } from '../core/service/capacity.js';
import { CloudApiError } from '../core/service/api-error.js';
import { cloudErrorSentence } from '../core/render/errors.js';
import { esc } from '../core/render/mrkdwn.js';
import { serviceBlocks, type ShowReadings } from '../core/render/service.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { ReadOptions } from '../ports/service-directory.js';
import { replyText, type BotServices, type Invocation } from './context.js';
import { lookupService } from './lookup.js';

export async function showService(query: string, inv: Invocation, s: BotServices): Promise<void> {
  const found = await lookupService(s, query, inv.userId);
  if (!found.ok) return replyText(inv, found.text);
  const reading: ReadOptions = { person: inv.userId, priority: 'command' };
  const [upgradeWindow, activeEntry] = await Promise.all([
    upgradeWindowOf(found.service, s, reading),
    activeEntryOf(found.service, s, reading),
  ]);
  const readings: ShowReadings = { upgradeWindow, ...(activeEntry ? { activeEntry } : {}) };
  return inv.reply({
    text: `Service ${esc(found.service.name)}`,
    blocks: serviceBlocks(found.service, undefined, readings),
  });
}

async function upgradeWindowOf(
  service: ServiceRecord,
  s: BotServices,
  reading: ReadOptions,
): Promise<NonNullable<ShowReadings['upgradeWindow']>> {
  // The API keeps upgrade windows for primary services only.
  if (service.isPrimary === false) return { kind: 'not-primary' };
  try {
    const window = await s.cloud.readUpgradeWindow(service.id, reading);
    return window ? { kind: 'set', window } : { kind: 'none' };
  } catch (error) {
    if (!(error instanceof CloudApiError)) throw error;
    return { kind: 'failed', text: cloudErrorSentence(error) };
  }
}

/**
 * The entry of the scaling schedule in force, read only while the record shows one (its
 * `currentScaling` differs from the base, or names an entry): a service without a schedule costs
 * no read. Undefined when it cannot be told (the read failed, or no entry says it is active).
 */
async function activeEntryOf(
  service: ServiceRecord,
  s: BotServices,
  reading: ReadOptions,
): Promise<ShowReadings['activeEntry']> {
  const named = service.currentScaling?.activeEntryId;
  if (named === undefined && currentCapacity(service) === undefined) return undefined;
  const schedule = await s.cloud.readScalingSchedule(service.id, reading).catch((error: unknown) => {
    if (error instanceof CloudApiError) return undefined;
    throw error;
  });
  const entry = schedule?.entries.find((candidate) =>
    named === undefined ? candidate.isActiveNow === true : candidate.id === named,
  );
  return entry ? { name: entry.name, endHourUtc: entry.endHourUtc } : undefined;
}
