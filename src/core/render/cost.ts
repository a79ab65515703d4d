/**
 * Spend in Slack: the cost report (total against the period before, split by kind, per service,
 * top movers), the chart's text alternative (the same totals, for screen readers and for anyone
 * the image does not load for) and the sentences about spend that goes wrong.
 */
import {
  changePercent,
  type CostReport,
  type DailySpendSeries,
  type ServiceSpend,
  type WeekSpend,
} from '../cost/report.js';
import { dayCount, type DayRange } from '../cost/period.js';
import { COST_KINDS } from '../cost/attribution.js';
import type { ComputeDay, SpendEstimate } from '../cost/capacity.js';
import type { AlertRules, CostAlert } from '../cost/alerts.js';
import { CloudApiError } from '../service/api-error.js';
import { apiReference } from './errors.js';
import type { ConsoleBase } from './console.js';
import { bold, code, context, esc, header, packLines, section, visible, type Block } from './mrkdwn.js';
import { listedName } from './service.js';

/** Services listed one per line before the rest are counted. */
const SERVICES_LISTED = 15;

/** 1234.5 → "1,234.50" (credits are shown to the hundredth). */
export function credits(value: number): string {
  // Rounding noise of a credit (-0.001) is not shown as "-0.00".
  const shown = Math.abs(value) < 0.005 ? 0 : value;
  return shown.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/**
 * "+12%", "−4%", or "new" when nothing was spent before. Against nothing or a credit (a negative
 * total) a percentage means nothing: "new credit", or the difference in credits ("+15.00 CHC").
 */
export function changeText(now: number, before: number): string {
  const percent = changePercent(now, before);
  if (percent === undefined) {
    if (Math.abs(now - before) < 0.005) return 'no change';
    if (Math.abs(before) < 0.005) return now > 0 ? 'new' : 'new credit';
    return `${signedCredits(now - before)} CHC`;
  }
  const rounded = Math.round(percent);
  if (rounded === 0) return 'no change';
  return rounded > 0 ? `+${rounded}%` : `−${Math.abs(rounded)}%`;
}

function signedCredits(value: number): string {
  return value >= 0 ? `+${credits(value)}` : `−${credits(Math.abs(value))}`;
}

export function periodText(range: DayRange): string {
  return `${range.from} to ${range.to}`;
}

/** A service as `list` shows it (name, linked to its console page, and short id); another entity named as such. */
function nameOf(spend: ServiceSpend, consoleUrl?: ConsoleBase): string {
  return spend.isService ? listedName(spend, consoleUrl) : `${bold(spend.name)} (not a service)`;
}

export interface CostScope {
  /** "the organization", "orders-prod", "services tagged env=prod". */
  label: string;
  /** Some days of the period are not locked yet: their figures may still change. */
  provisional: boolean;
  /** CONSOLE_URL: each service's name links to its page there; undefined: no links. */
  consoleUrl?: ConsoleBase;
}

/** The kinds line: "compute 80.10 · storage 30.20 · backup 3.02 · transfer 1.10". */
export function kindsText(report: Pick<CostReport, 'kinds'>): string {
  return COST_KINDS.filter((kind) => kind !== 'other' || report.kinds.other >= 0.005)
    .map((kind) => `${kind} ${credits(report.kinds[kind])}`)
    .join(' · ');
}

export function moversText(report: Pick<CostReport, 'movers'>, consoleUrl?: ConsoleBase): string {
  if (report.movers.length === 0) return 'Top movers: none, every service spent about the same as before.';
  const moves = report.movers.map((s) => {
    const difference = `${signedCredits(s.total - s.previous)} CHC`;
    const change = changeText(s.total, s.previous);
    // Against a credit the change is said as the difference itself: said once.
    return `${nameOf(s, consoleUrl)} ${difference}${change === difference ? '' : ` (${change})`}`;
  });
  return `Top movers: ${moves.join(', ')}`;
}

export function warehouseNote(report: Pick<CostReport, 'warehouseAttributed'>): string | undefined {
  if (report.warehouseAttributed < 0.005) return undefined;
  return (
    `Includes ${credits(report.warehouseAttributed)} CHC of shared data warehouse storage, ` +
    'split evenly among the services that share each warehouse (the API bills it to the warehouse).'
  );
}

export function costBlocks(report: CostReport, scope: CostScope): Block[] {
  const days = dayCount(report.period);
  const totalLine =
    `${bold(`${credits(report.total)} CHC`)} over ${days} days (${esc(periodText(report.period))}, UTC), ` +
    `${changeText(report.total, report.previousTotal)} against the ${days} days before (${credits(report.previousTotal)} CHC).`;
  const lines = report.services.map(
    (s) => `• ${nameOf(s, scope.consoleUrl)}: ${credits(s.total)} CHC (${changeText(s.total, s.previous)})`,
  );
  const listed = lines.slice(0, SERVICES_LISTED);
  const hidden = lines.length - listed.length;
  const notes = [
    'Figures in ClickHouse Credits (CHC) per UTC day.',
    scope.provisional ? 'The last days are not final yet and may still change.' : undefined,
    warehouseNote(report),
  ].filter((note): note is string => note !== undefined);
  const blocks: Block[] = [
    header(`Spend of ${scope.label}, last ${days} days`),
    section(totalLine),
    section(`By kind: ${kindsText(report)}`),
  ];
  if (listed.length === 0) blocks.push(section('No spend recorded in this period.'));
  else blocks.push(...packLines(hidden > 0 ? [...listed, `…and ${hidden} more`] : listed, 3, (n) => `…and ${n} more`));
  // Movers compare services with each other: a report of one service has none to compare.
  if (report.services.length > 1) blocks.push(section(moversText(report, scope.consoleUrl)));
  blocks.push(context(notes.join(' ')));
  return blocks;
}

/** The notification text of the report: the total and its change. */
export function costText(report: CostReport, scope: CostScope): string {
  return `Spend of ${esc(scope.label)}: ${credits(report.total)} CHC over ${dayCount(report.period)} days (${changeText(report.total, report.previousTotal)})`;
}

/** The chart's title. */
export function chartTitle(series: DailySpendSeries, scopeLabel: string): string {
  const first = series.days[0] ?? '';
  const last = series.days.at(-1) ?? '';
  return `Daily spend of ${visible(scopeLabel)} (CHC), ${first} to ${last}`;
}

/** What the chart shows, in words: each series' total over the period, largest first, and the sum. */
export function chartAltText(series: DailySpendSeries, scopeLabel: string): string {
  const parts = series.series.map((s) => `${visible(s.name)} ${credits(s.total)}`);
  const total = series.series.reduce((sum, s) => sum + s.total, 0);
  return `${chartTitle(series, scopeLabel)}, stacked per ${series.splitBy}: ${parts.join(', ')}; total ${credits(total)} CHC.`;
}

/** When the chart could not be shared: the report stands, the sentence says why and what to do. */
export function chartFailedText(slackCode: string): string {
  if (slackCode === 'missing_scope' || slackCode === 'not_allowed_token_type') {
    return `:warning: I could not share the chart: the Slack app lacks the ${code('files:write')} scope. Add it in the app's settings (manifest.yml lists it) and reinstall the app.`;
  }
  return `:warning: I could not share the chart (Slack said ${code(slackCode)}); the figures above are complete.`;
}

export const COST_NO_SERVICES_TEXT =
  ':grey_question: No service carries those tags, so there is no spend to show. Check the tags with `list`.';

/** Said privately to the person who asked, once the report is in the channel. */
export const COST_POSTED_TEXT = ':bar_chart: The spend report is in the channel; the chart follows in its thread.';
/** Said when the report has no daily spend to chart. */
export const COST_POSTED_NO_CHART_TEXT = ':bar_chart: The spend report is in the channel.';

/** The spend part of a summary: yesterday, the last 7 days against the 7 before, the top movers. */
export function spendSummaryMessage(spend: WeekSpend, scope: CostScope): { text: string; blocks: Block[] } {
  const { report } = spend;
  const lines = [
    `*Spend* of ${esc(scope.label)} (ClickHouse Credits, UTC days)`,
    `Yesterday (${esc(report.period.to)}): ${bold(`${credits(spend.yesterday)} CHC`)}`,
    `Last 7 days: ${bold(`${credits(report.total)} CHC`)}, ${changeText(report.total, report.previousTotal)} against the 7 before (${credits(report.previousTotal)} CHC)`,
    moversText(report, scope.consoleUrl),
  ];
  const notes = [
    scope.provisional ? 'The last days are not final yet and may still change.' : undefined,
    warehouseNote(report),
  ].filter((note): note is string => note !== undefined);
  const blocks: Block[] = [section(lines.join('\n'))];
  if (notes.length > 0) blocks.push(context(notes.join(' ')));
  return { text: `Spend: ${credits(report.total)} CHC in the last 7 days`, blocks };
}

/** Said in the summary's thread when spend could not be read: the rest of the summary stands. */
export function spendUnavailableText(reason: string): string {
  return `:warning: Spend is missing from this summary: ${esc(reason)}`;
}

const gb = (value: number) => `${Number.isInteger(value) ? value : value.toFixed(1)} GB`;

/** Beside a capacity request: compute spend per day over the last 7 days, and the labelled estimate. */
export function capacitySpendText(serviceName: string, days: readonly ComputeDay[], estimate: SpendEstimate): string {
  const perDay = days.map((day) => `${day.date.slice(5)} ${credits(day.compute)}`).join(' · ');
  const lines = [`*Compute spend of ${esc(serviceName)}*, CHC per UTC day, last 7 days: ${esc(perDay)}`];
  if (estimate.kind === 'memory') {
    const change = estimate.dailyAfter - estimate.dailyBefore;
    lines.push(
      `*Estimate* after this change: about ${credits(estimate.dailyAfter)} CHC a day (${signedCredits(change)} CHC a day, ` +
        `${changeText(estimate.dailyAfter, estimate.dailyBefore)}). Assumption: compute spend is proportional to total ` +
        `memory (${gb(estimate.beforeGb)} → ${gb(estimate.afterGb)}, mid-range) and the service runs the same hours. ` +
        'An estimate, not a quote.',
    );
  } else if (estimate.kind === 'hours') {
    lines.push(
      estimate.enabled
        ? '*Estimate*: idle scaling stops compute while the service is idle, so spend falls by the share of hours it idles, which I cannot foresee.'
        : '*Estimate*: without idle scaling the service is billed for every hour, so compute spend rises to about 24 hours a day of its current memory.',
    );
  } else {
    lines.push('*Estimate*: not available, because the service does not show its total memory.');
  }
  return lines.join('\n');
}

/** One cost alert, posted in the COST_ALERTS channel. */
export function costAlertText(alert: CostAlert, rules: AlertRules, slashCommand: string): string {
  const reasons = [
    alert.jumped
      ? `${(alert.spend / alert.median).toFixed(1)}× its median of the 7 days before (${credits(alert.median)} CHC)`
      : undefined,
    alert.above && rules.aboveChc !== undefined
      ? `above the alert threshold of ${credits(rules.aboveChc)} CHC`
      : undefined,
  ].filter((reason): reason is string => reason !== undefined);
  return (
    `:chart_with_upwards_trend: ${listedName({ name: alert.name, id: alert.serviceId })} spent ${bold(`${credits(alert.spend)} CHC`)} on ` +
    `${esc(alert.date)} (UTC), ${reasons.join(' and ')}. ${code(`${slashCommand} cost ${alert.name.includes(' ') ? `"${alert.name}"` : alert.name}`)} shows where it went.`
  );
}

/** A usage cost read the API refused for the key (403): billing is a permission of its own. */
export const COST_FORBIDDEN_SENTENCE =
  "the bot's API key may not read usage costs (ClickHouse Cloud answered 403). Whoever runs the bot should give the key a role that can see billing and usage.";

/** Why spend could not be read (plain text, escape it), for a 403; undefined for what every API failure says. */
export function costReadFailure(error: unknown): string | undefined {
  if (!(error instanceof CloudApiError)) return undefined;
  if (error.kind === 'http' && error.details.status === 403)
    return `${COST_FORBIDDEN_SENTENCE}${apiReference(error, 'plain')}`;
  return undefined;
}

/** Why a summary's spend section is missing when the API budget kept it waiting. */
export const SPEND_NOT_READY_REASON =
  'the figures were not ready in time (the API budget is busy); the next summary has them.';
