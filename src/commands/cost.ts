/**
 * `/clickhouse cost [SERVICE | tag:… …] [7d|30d|90d]`: the spend report is posted in the channel
 * and the daily spend chart shared in its thread; the person who asked is told privately.
 */
import { costReport, dailySpendSeries, type EntityFilter } from '../core/cost/report.js';
import { periodEndingYesterday, PERIODS, previousPeriod, type DayRange, type PeriodName } from '../core/cost/period.js';
import type { CostRow } from '../core/cost/schema.js';
import {
  capacitySpendText,
  costBlocks,
  costReadFailure,
  costText,
  COST_NO_SERVICES_TEXT,
  COST_POSTED_NO_CHART_TEXT,
  COST_POSTED_TEXT,
  type CostScope,
} from '../core/render/cost.js';
import { MessengerError } from '../ports/index.js';
import { replyText, type BotServices, type Invocation } from './context.js';
import { lookupService } from './lookup.js';
import { computeByDay, estimateSpend, isCapacityIntent } from '../core/cost/capacity.js';
import type { ChangeIntent, ChangeRequest } from '../core/change/types.js';
import type { ServiceRecord } from '../core/service/schema.js';
import { messageOf } from '../core/render/errors.js';
import { esc, section } from '../core/render/mrkdwn.js';

export interface CostAsk {
  service?: string;
  filters: string[];
  period: PeriodName;
}

export async function showCost(ask: CostAsk, inv: Invocation, s: BotServices, now = Date.now()): Promise<void> {
  if (s.costsUnavailable) return replyText(inv, s.costsUnavailable);
  const chosen = await chooseEntities(ask, inv.userId, s);
  if (!chosen.ok) return replyText(inv, chosen.text);
  const period = periodEndingYesterday(now, PERIODS[ask.period]);
  const previous = previousPeriod(period);
  let rows: CostRow[];
  try {
    rows = await s.costs.rows({ from: previous.from, to: period.to }, { person: inv.userId, priority: 'command' });
  } catch (error) {
    const forbidden = costReadFailure(error);
    if (forbidden === undefined) throw error;
    return replyText(inv, `:x: /clickhouse cost failed: ${esc(forbidden)}`);
  }
  const report = costReport(rows, period, previous, chosen.keep);
  const scope: CostScope = {
    label: chosen.label,
    provisional: hasUnlocked(rows, period),
    ...(s.consoleUrl ? { consoleUrl: s.consoleUrl } : {}),
  };
  const message = { text: costText(report, scope), blocks: costBlocks(report, scope) };
  let ts: string;
  try {
    ts = await s.messenger.post(inv.channelId, message);
  } catch (error) {
    // Not allowed to post here (a private channel the bot is not in): the person still gets the figures.
    if (!(error instanceof MessengerError)) throw error;
    return inv.reply(message);
  }
  // The chart poster draws nothing for a report without daily spend: the person is not promised one.
  const charted = dailySpendSeries(report).series.length > 0;
  await replyText(inv, charted ? COST_POSTED_TEXT : COST_POSTED_NO_CHART_TEXT);
  if (charted) await s.spendCharts.share(report, chosen.label, inv.channelId, ts);
}

export function hasUnlocked(rows: readonly CostRow[], period: DayRange): boolean {
  return rows.some((row) => !row.locked && row.date >= period.from && row.date <= period.to);
}

type Chosen = { ok: true; keep: EntityFilter; label: string } | { ok: false; text: string };

/** Which entities the report counts: one service, the services carrying the tags, or everything. */
async function chooseEntities(ask: CostAsk, person: string, s: BotServices): Promise<Chosen> {
  if (ask.service !== undefined) {
    const found = await lookupService(s, ask.service, person);
    if (!found.ok) return found;
    const id = found.service.id;
    return { ok: true, keep: (entity) => entity.id === id, label: found.service.name };
  }
  // A channel of ORGANIZATIONS_FILE sees only its services (s.cloud is its view): so does its spend.
  if (ask.filters.length === 0 && !s.tenants) return { ok: true, keep: () => true, label: 'the organization' };
  const list = await s.cloud.listServices(ask.filters, { person, priority: 'command' });
  if (ask.filters.length === 0) {
    const visible = new Set(list.services.map((service) => service.id));
    return { ok: true, keep: (entity) => entity.isService && visible.has(entity.id), label: 'this channel’s services' };
  }
  if (list.services.length === 0) return { ok: false, text: COST_NO_SERVICES_TEXT };
  const ids = new Set(list.services.map((service) => service.id));
  const tags = ask.filters.map((filter) => filter.slice('tag:'.length)).join(' ');
  return { ok: true, keep: (entity) => entity.isService && ids.has(entity.id), label: `services tagged ${tags}` };
}

/**
 * Beside a capacity request (scale, memory, idle), in its thread: the service's compute spend per
 * day over the last 7 days and the estimate of the change. Best effort: the request stands
 * whatever happens here, and a failure is only logged.
 */
export async function showCapacitySpend(
  request: ChangeRequest,
  service: ServiceRecord,
  intent: ChangeIntent,
  s: BotServices,
  now = Date.now(),
): Promise<void> {
  if (!isCapacityIntent(intent) || request.messageTs === undefined || s.costsUnavailable) return;
  try {
    const week = periodEndingYesterday(now, 7);
    const rows = await s.costs.rows(week, { person: request.requesterId });
    const days = computeByDay(rows, service.id, week);
    const text = capacitySpendText(service.name, days, estimateSpend(service, intent, days));
    await s.messenger.post(request.channelId, { text, blocks: [section(text)], threadTs: request.messageTs });
  } catch (error) {
    s.logger.warn(`compute spend beside ${request.id} not shown: ${messageOf(error)}`);
  }
}
