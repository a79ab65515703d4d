/**
 * The summary as Slack messages: a short headline for the channel, and the details in its thread,
 * split into as many messages as Slack's limits need. Everything from data goes through esc, code
 * or bold, and is clipped before escaping so truncation never cuts an entity in half.
 */
import type { ServiceRecord } from '../service/schema.js';
import { code, context, esc, header, LIMITS, section, slackDate, truncate, type Block } from '../render/mrkdwn.js';
import type { ConsoleBase } from '../render/console.js';
import { enabledEndpoints, idleText, listedName, listedRisks, stateText, versionText } from '../render/service.js';
import { capacityPhrase } from '../service/capacity.js';
import { isBotChange, type DriftItem } from './drift.js';
import { driftAuthorText } from './author-text.js';
import type { KeyDriftItem } from './key-drift.js';
import type { KeysRead } from './keys.js';
import { keyDriftLine, keysHeadline, keysPart } from './keys-render.js';
import { packParts, type DetailPart } from './pack.js';
import { findingsByService, summaryTotals, type FindingsByService, type Range, type SummaryTotals } from './totals.js';

export interface SummaryMessage {
  /** Notification text; Slack parses it as mrkdwn too, so it is escaped like the blocks. */
  text: string;
  blocks: Block[];
}

export interface SummaryInput {
  services: readonly ServiceRecord[];
  /** The tag filters the services were selected with, shown so readers know the scope. */
  filters: readonly string[];
  /** Posture findings by service id, when already computed; otherwise computed here. */
  findings?: FindingsByService;
  /** Changes since the previous summary; undefined for the first one (no baseline yet). */
  drift: readonly DriftItem[] | undefined;
  generatedAt: number;
  title?: string;
  /**
   * Set when the organization's activity log could not be read, so attribution fell back to the
   * bot's own record, and this summary is the one to say so (once, not in every summary).
   */
  activityLogUnread?: ActivityLogUnread;
  /** CONSOLE_URL: each service's name links to its page there; undefined: no links. */
  consoleUrl?: ConsoleBase;
  /** The organization's API keys as this summary read them (or why not): the keys line. */
  keys?: KeysRead;
  /** Key changes since the previous summary; undefined without a baseline of keys. */
  keyDrift?: readonly KeyDriftItem[];
}

/** Why the activity log could not be read: the API's status when it answered, else undefined. */
export interface ActivityLogUnread {
  status: number | undefined;
}

export interface SummaryMessages {
  headline: SummaryMessage;
  /** In order, for the headline's thread; empty when there is nothing to detail. */
  details: SummaryMessage[];
}

export const DEFAULT_SUMMARY_TITLE = 'ClickHouse Cloud summary';

export function summaryMessages(input: SummaryInput): SummaryMessages {
  const findings = input.findings ?? findingsByService(input.services);
  const totals = summaryTotals(input.services, findings);
  const title = input.title ?? DEFAULT_SUMMARY_TITLE;
  const packed = packParts(detailParts(input, findings));
  const details = packed.map((blocks, i) => detailMessage(blocks, title, input.generatedAt, i + 1, packed.length));
  return { headline: headlineMessage(input, title, totals, details.length), details };
}

/** For a schedule that could not run: said in the channel, so nobody waits for a summary. */
/** `what` names the summary as people know it: "The scheduled summary", "The summary". */
export function summaryFailureMessage(reason: string, what = 'The ClickHouse Cloud summary'): SummaryMessage {
  const clean = clip(reason, 2000);
  return {
    text: esc(`${what} failed: ${clean}`),
    blocks: [section(`:x: *${esc(what)} could not be produced.*\n${esc(clean)}`)],
  };
}

// ---------------------------------------------------------------------------------------------
// Headline

function headlineMessage(
  input: SummaryInput,
  title: string,
  totals: SummaryTotals,
  detailCount: number,
): SummaryMessage {
  const blocks: Block[] = [
    header(title),
    context(`${scopeText(totals.services, input.filters)} · as of ${slackDate(input.generatedAt)}`),
    { type: 'section', fields: headlineFields(totals, input) },
  ];
  if (totals.findingCount > 0) blocks.push(section(postureBreakdown(totals)));
  if (detailCount > 0) blocks.push(context(`:thread: Details in the thread (${plural(detailCount, 'message')}).`));
  const changes = input.drift === undefined ? undefined : [...input.drift, ...(input.keyDrift ?? [])];
  return { text: esc(headlineText(title, totals, changes, detailCount)), blocks };
}

function scopeText(count: number, filters: readonly string[]): string {
  const services = plural(count, 'service');
  if (filters.length === 0) return `${services} in the organization`;
  return `${services} matching ${filters.map((f) => code(clip(f, 300))).join(' ')}`;
}

type Field = { type: 'mrkdwn'; text: string };

function headlineFields(totals: SummaryTotals, input: SummaryInput): Field[] {
  const rows: Array<[string, string | undefined]> = [
    ['Services', formatNumber(totals.services)],
    ['State', countsText(totals.byState, (state) => stateText(clip(state, 40)), '\n')],
    ['Release channel', countsText(totals.byReleaseChannel, (channel) => esc(clip(channel, 40)), ' · ')],
    [
      'Replicas',
      withNow(rangeText(totals.replicas, '', totals.servicesWithoutReplicas), totals.replicasNow, '', totals),
    ],
    [
      'Memory',
      withNow(rangeText(totals.memoryGb, ' GB', totals.servicesWithoutMemory), totals.memoryGbNow, ' GB', totals),
    ],
    ['Posture', postureHeadline(totals)],
    ['Changes', driftHeadline(input.drift, input.keyDrift)],
    ['API keys', keysHeadline(input.keys, input.generatedAt)],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .slice(0, LIMITS.sectionFields)
    .map(([label, value]) => ({ type: 'mrkdwn', text: truncate(`*${label}*\n${value}`, LIMITS.fieldText) }));
}

/** Largest first; undefined when no record carried the field, so the field is left out. */
function countsText(
  counts: ReadonlyMap<string, number>,
  show: (value: string) => string,
  separator: string,
): string | undefined {
  if (counts.size === 0) return undefined;
  return [...counts.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([value, count]) => `${show(value)} ${formatNumber(count)}`)
    .join(separator);
}

function rangeText(range: Range | undefined, unit: string, unknown: number): string | undefined {
  if (range === undefined) return unknown > 0 ? '_not reported_' : undefined;
  const value =
    range.min === range.max ? formatNumber(range.min) : `${formatNumber(range.min)}–${formatNumber(range.max)}`;
  return `${value}${unit}${unknown > 0 ? ` _(${plural(unknown, 'service')} not reporting)_` : ''}`;
}

/** While scaling schedules are active, the figure in force now follows the baseline. */
function withNow(
  baseline: string | undefined,
  now: Range | undefined,
  unit: string,
  totals: SummaryTotals,
): string | undefined {
  if (baseline === undefined || totals.servicesScaledNow === 0 || now === undefined) return baseline;
  const value = now.min === now.max ? formatNumber(now.min) : `${formatNumber(now.min)}–${formatNumber(now.max)}`;
  return `${baseline}\n:arrows_counterclockwise: now ${value}${unit} _(${plural(totals.servicesScaledNow, 'scaling schedule')} active)_`;
}

function postureHeadline(totals: SummaryTotals): string {
  if (totals.findingCount === 0) return ':white_check_mark: no warnings';
  return `:warning: ${plural(totals.findingCount, 'warning')} on ${plural(totals.servicesWithFindings, 'service')}`;
}

function postureBreakdown(totals: SummaryTotals): string {
  const counts = [...totals.findings.values()]
    .sort((a, b) => b.count - a.count)
    .map((f) => `${esc(f.label)} ${formatNumber(f.count)}`);
  return `:warning: *Posture warnings:* ${counts.join(' · ')}`;
}

function driftHeadline(drift: readonly DriftItem[] | undefined, keyDrift: readonly KeyDriftItem[] = []): string {
  if (drift === undefined) return 'First summary: changes are reported from the next one';
  const changes = [...drift, ...keyDrift];
  if (changes.length === 0) return 'No changes since the last summary';
  const { bot, elsewhere } = driftCounts(changes);
  return `${plural(changes.length, 'change')} since the last summary: ${formatNumber(bot)} via this bot, ${formatNumber(elsewhere)} elsewhere`;
}

function headlineText(
  title: string,
  totals: SummaryTotals,
  drift: readonly unknown[] | undefined,
  detailCount: number,
): string {
  const parts = [plural(totals.services, 'service'), plural(totals.findingCount, 'posture warning')];
  if (drift !== undefined) parts.push(`${plural(drift.length, 'change')} since the last summary`);
  return `${title}: ${parts.join(', ')}.${detailCount > 0 ? ' Details in the thread.' : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Details

function detailParts(input: SummaryInput, findings: FindingsByService): DetailPart[] {
  const services = [...input.services].sort(byName);
  const drift = driftPart(input, input.generatedAt);
  const keys = keysPart(input.keys, input.generatedAt);
  return [
    drift,
    posturePart(services, findings, input.consoleUrl),
    keys,
    servicesPart(services, input.consoleUrl),
  ].filter((part): part is DetailPart => part !== undefined);
}

function driftPart(input: SummaryInput, generatedAt: number): DetailPart | undefined {
  const drift = input.drift ?? [];
  const keyDrift = input.drift === undefined ? [] : (input.keyDrift ?? []);
  const count = drift.length + keyDrift.length;
  if (count === 0) return undefined;
  const { bot, elsewhere } = driftCounts([...drift, ...keyDrift]);
  // With filters, a service whose tags changed leaves the summary's scope and reads as removed.
  const scope =
    input.filters.length > 0 ? "\n_A service whose tags stop matching this summary's filters shows as removed._" : '';
  const unread = input.activityLogUnread;
  const fallback = unread === undefined ? '' : `\n${activityLogFallbackNote(unread)}`;
  return {
    title: `*Changes since the last summary* (${formatNumber(count)}: ${formatNumber(bot)} via this bot, ${formatNumber(elsewhere)} elsewhere)${scope}${fallback}`,
    continuedTitle: '*Changes since the last summary* (continued)',
    lines: [
      ...drift.map((item) => driftLine(item, generatedAt, input.consoleUrl)),
      ...keyDrift.map((item) => keyDriftLine(item, generatedAt)),
    ],
  };
}

/** Said once when exact attribution is not possible: why, and what whoever runs the bot can do. */
export function activityLogFallbackNote(unread: ActivityLogUnread): string {
  const refused = unread.status === 401 || unread.status === 403;
  const why = refused
    ? `ClickHouse Cloud does not let the bot's API key read the organization's activities (status ${unread.status})`
    : `the organization's activities could not be read from ClickHouse Cloud${unread.status === undefined ? '' : ` (status ${unread.status})`}`;
  const todo = refused
    ? ' Give the key a role that may read activities to see who made each change.'
    : ' The bot tries again at the next summary.';
  return `:information_source: _Who made each change is this bot's own guess from its change requests, because ${why}.${todo} This is said once._`;
}

function driftLine(item: DriftItem, generatedAt: number, consoleUrl: ConsoleBase): string {
  const service = listedName({ name: clip(item.serviceName, 100), id: item.serviceId }, consoleUrl);
  return `• ${service}: ${esc(clip(item.text, 600))} — ${driftAuthorText(item, generatedAt)}`;
}

function posturePart(
  services: readonly ServiceRecord[],
  findings: FindingsByService,
  consoleUrl: ConsoleBase,
): DetailPart | undefined {
  const lines = services.flatMap((service) => {
    const own = findings.get(service.id) ?? [];
    if (own.length === 0) return [];
    const name = listedName({ name: displayName(service), id: service.id }, consoleUrl);
    return [`:warning: ${name}: ${own.map((f) => esc(clip(f.detail, 300))).join(' ')}`];
  });
  if (lines.length === 0) return undefined;
  return {
    title: `*Posture warnings* (${plural(lines.length, 'service')})`,
    continuedTitle: '*Posture warnings* (continued)',
    lines,
  };
}

function servicesPart(services: readonly ServiceRecord[], consoleUrl: ConsoleBase): DetailPart | undefined {
  if (services.length === 0) return undefined;
  return {
    title: `*Services* (${formatNumber(services.length)})`,
    continuedTitle: '*Services* (continued)',
    lines: services.map((service) => serviceSummaryLine(service, consoleUrl)),
  };
}

/**
 * Name and short id, state, version, replicas and memory, idle scaling and enabled endpoints, on
 * one line, then the posture mark: as `list` says them, in its order, with its mark.
 */
export function serviceSummaryLine(service: ServiceRecord, consoleUrl?: ConsoleBase): string {
  const parts = [
    stateText(service.state === undefined ? undefined : clip(service.state, 40)),
    versionText({ clickhouseVersion: service.clickhouseVersion && clip(service.clickhouseVersion, 40) }),
    capacityPhrase(service),
    idleText(service),
    endpointsText(service),
  ].filter((part): part is string => Boolean(part));
  const name = listedName({ name: displayName(service), id: service.id }, consoleUrl);
  return `• ${name}  ${parts.join(' · ')}${listedRisks(service)}`;
}

function endpointsText(service: ServiceRecord): string | undefined {
  if (service.endpoints === undefined) return undefined;
  const enabled = enabledEndpoints(service);
  return enabled.length === 0 ? 'no endpoint enabled' : `endpoints ${enabled.map((p) => esc(clip(p, 30))).join(', ')}`;
}

function detailMessage(
  blocks: Block[],
  title: string,
  generatedAt: number,
  index: number,
  count: number,
): SummaryMessage {
  const label = `${title} · details ${index} of ${count}`;
  return { text: esc(label), blocks: [context(`${esc(label)} · as of ${slackDate(generatedAt)}`), ...blocks] };
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function driftCounts(drift: ReadonlyArray<Pick<DriftItem, 'via' | 'authors'>>): { bot: number; elsewhere: number } {
  const bot = drift.filter(isBotChange).length;
  return { bot, elsewhere: drift.length - bot };
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const byName = (a: ServiceRecord, b: ServiceRecord) =>
  collator.compare(displayName(a), displayName(b)) || (a.id < b.id ? -1 : 1);

/** Raw, before escaping: a name that could not be read shows as its id. */
const displayName = (service: ServiceRecord) => clip(service.name || service.id, 100);

/** Clips raw data (before esc), so no later truncation can cut an entity such as &amp; in half. */
const clip = (text: string, max: number) => truncate(text, max);

const numberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const formatNumber = (value: number) => numberFormat.format(value);
const plural = (count: number, noun: string) => `${formatNumber(count)} ${noun}${count === 1 ? '' : 's'}`;
