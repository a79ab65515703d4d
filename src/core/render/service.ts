/** Block Kit for services: the compact list and the full record. */
import type { ServiceRecord } from '../service/schema.js';
import { postureFindings, type PostureCode } from '../posture/rules.js';
import {
  baselineCapacity,
  capacityPhrase,
  capacityText,
  currentCapacity,
  rangeText,
  totalMemoryText,
} from '../service/capacity.js';
import { stateInfo } from '../service/states.js';
import type { UpgradeWindow } from '../service/upgrade-window.js';
import { upgradeWindowUtcText } from './upgrade-window.js';
import {
  bold,
  code,
  context,
  esc,
  header,
  LIMITS,
  packLines,
  section,
  slackDate,
  truncate,
  type Block,
} from './mrkdwn.js';

/** Replicas of the baseline, with the autoscaling mode: "3 (vertical autoscaling)", "2–6". */
function replicasField(s: ServiceRecord): string | undefined {
  const { replicas } = baselineCapacity(s);
  const mode = s.autoscalingMode ? ` (${esc(s.autoscalingMode)} autoscaling)` : '';
  return replicas === undefined ? undefined : `${rangeText(replicas)}${mode}`;
}

/** "8–32 GB per replica, 24–96 GB in total". */
function memoryField(s: ServiceRecord): string | undefined {
  const baseline = baselineCapacity(s);
  if (baseline.replicaMemoryGb === undefined) return undefined;
  const total = totalMemoryText(baseline);
  return `${rangeText(baseline.replicaMemoryGb)} GB per replica${total ? `, ${total}` : ''}`;
}

/**
 * While a scaling schedule is active: what runs now (`currentScaling.effective*`), the entry in
 * force when it was read, and the base configuration the service returns to:
 * "now 6 × 32 GB (schedule 'business hours' until 18:00 UTC), base 2 × 32 GB".
 */
function scalingNowField(s: ServiceRecord, entry: ShowReadings['activeEntry']): string | undefined {
  const current = currentCapacity(s);
  if (current === undefined) return undefined;
  const baseline = capacityText(baselineCapacity(s));
  const schedule = entry ? ` (schedule '${esc(entry.name)}' until ${hour(entry.endHourUtc)} UTC)` : '';
  return `:arrows_counterclockwise: now ${capacityText(current) ?? 'unknown'}${schedule}${baseline ? `, base ${baseline}` : ''}`;
}

const hour = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;

/** What `show` reads besides the record, each on its own (a failure costs only its line). */
export interface ShowReadings {
  /** GET …/upgradeWindow; absent: not read (the result of an applied change). */
  upgradeWindow?:
    | { kind: 'set'; window: UpgradeWindow }
    | { kind: 'none' }
    /** Only primary services have one (the API's words): not read. */
    | { kind: 'not-primary' }
    | { kind: 'failed'; text: string };
  /** The scaling schedule's entry in force now (GET …/scalingSchedule, read only while one is). */
  activeEntry?: { name: string; endHourUtc: number };
}

/** One line: "*Upgrade window:* Sundays 00:00–06:00 UTC", "none set". */
function upgradeWindowLine(reading: NonNullable<ShowReadings['upgradeWindow']>): string {
  const text =
    reading.kind === 'set'
      ? upgradeWindowUtcText(reading.window)
      : reading.kind === 'none'
        ? 'none set (ClickHouse Cloud may upgrade it at any time)'
        : reading.kind === 'not-primary'
          ? 'none: only a primary service has one'
          : `could not be read: ${reading.text}`;
  return `*Upgrade window:* ${text}`;
}

export function idleText(s: ServiceRecord): string | undefined {
  if (s.idleScaling === undefined) return undefined;
  if (!s.idleScaling) return 'idle scaling off';
  return s.idleTimeoutMinutes === undefined ? 'idle scaling on' : `idles after ${s.idleTimeoutMinutes} min`;
}

export function enabledEndpoints(s: ServiceRecord): string[] {
  return (s.endpoints ?? []).filter((e) => e.enabled !== false).map((e) => e.protocol);
}

/** Icon and readable label of any of the 14 states; an unknown state shows its own text. */
export function stateText(state: string | undefined): string {
  if (!state) return 'state unknown';
  const { icon, label } = stateInfo(state);
  return `${icon} ${esc(label)}`;
}

/** The findings worth a mark in a one-line listing: who can connect at all. */
const LIST_RISKS = new Set<PostureCode>(['open-to-world', 'broad-ip-entry', 'empty-ip-list']);

/** One line of the list: enough to spot a service and its risks at a glance. */
export function serviceLine(s: ServiceRecord): string {
  const parts = [
    stateText(s.state),
    s.clickhouseVersion ? `v${esc(s.clickhouseVersion)}` : undefined,
    capacityPhrase(s),
  ].filter((p): p is string => Boolean(p));
  const risks = postureFindings(s).filter((f) => LIST_RISKS.has(f.code));
  const riskText = risks.length > 0 ? `  :warning: ${risks.map((r) => r.label).join(', ')}` : '';
  return `${bold(s.name || s.id)}  ${code(shortId(s.id))}  ${parts.join(' · ')}${riskText}`;
}

const shortId = (id: string) => (id.length > 8 ? id.slice(0, 8) : id);

export function listBlocks(services: ServiceRecord[], filters: readonly string[], fetchedAt: number): Block[] {
  const filterText = filters.length > 0 ? ` matching ${filters.map(code).join(' ')}` : '';
  const blocks: Block[] = [
    header(`ClickHouse Cloud services (${services.length})`),
    context(
      `${services.length} service${services.length === 1 ? '' : 's'}${filterText} · as of ${slackDate(fetchedAt, '{time_secs}')} · \`show SERVICE\` for details`,
    ),
  ];
  if (services.length === 0) {
    blocks.push(
      section(
        filters.length > 0
          ? 'No service has these tags. Try `list` without filters.'
          : 'This organization has no services yet.',
      ),
    );
    return blocks;
  }
  const sorted = [...services].sort((a, b) => a.name.localeCompare(b.name));
  const lines = sorted.map(serviceLine);
  return blocks.concat(
    packLines(
      lines,
      LIMITS.messageBlocks - blocks.length,
      (hidden) => `_…and ${hidden} more. Narrow the list with tag filters, e.g. \`list tag:env=prod\`._`,
    ),
  );
}

/** The full record, for `show` and for the result of an applied change. */
export function serviceBlocks(s: ServiceRecord, title = s.name || s.id, readings: ShowReadings = {}): Block[] {
  const blocks: Block[] = [header(title), { type: 'section', fields: overviewFields(s, readings.activeEntry) }];
  if (readings.upgradeWindow) blocks.push(section(upgradeWindowLine(readings.upgradeWindow)));
  blocks.push(section(`*Endpoints*\n${endpointLines(s)}`));
  blocks.push(...ipAccessBlocks(s));
  blocks.push(section(privateEndpointText(s)));
  blocks.push(section(encryptionText(s)));
  const findings = postureFindings(s);
  if (findings.length > 0)
    blocks.push(section(`:warning: *Posture*\n${findings.map((f) => `• ${esc(f.detail)}`).join('\n')}`));
  const tags = (s.tags ?? []).map((t) => code(t.value === undefined ? t.key : `${t.key}=${t.value}`)).join(' ');
  blocks.push(
    context(
      `ID ${code(s.id)}${tags ? ` · tags ${tags}` : ''}${s.createdAt ? ` · created ${esc(s.createdAt.slice(0, 10))}` : ''}`,
    ),
  );
  return blocks.slice(0, LIMITS.messageBlocks);
}

function overviewFields(s: ServiceRecord, entry: ShowReadings['activeEntry']): Array<{ type: 'mrkdwn'; text: string }> {
  const where = [s.provider, s.region]
    .filter(Boolean)
    .map((p) => esc(p))
    .join(' ');
  const rows: Array<[string, string | undefined]> = [
    ['State', s.state ? stateText(s.state) : undefined],
    ['Version', s.clickhouseVersion ? esc(s.clickhouseVersion) : undefined],
    ['Release channel', s.releaseChannel ? esc(s.releaseChannel) : undefined],
    ['Tier', s.tier ? esc(s.tier) : undefined],
    ['Replicas', replicasField(s)],
    ['Memory', memoryField(s)],
    ['Scaling now', scalingNowField(s, entry)],
    ['Idle scaling', idleText(s)],
    ['Cloud', where || undefined],
    ['Read-only', s.isReadonly === undefined ? undefined : s.isReadonly ? 'yes' : 'no'],
  ];
  const present = rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '');
  const fields =
    present.length > 0 ? present : ([['Details', 'the record carries no details']] as Array<[string, string]>);
  return fields
    .slice(0, LIMITS.sectionFields)
    .map(([label, value]) => ({ type: 'mrkdwn', text: truncate(`*${label}*\n${value}`, LIMITS.fieldText) }));
}

function endpointLines(s: ServiceRecord): string {
  const endpoints = (s.endpoints ?? []).filter((e) => e.enabled !== false);
  if (endpoints.length === 0) return '_none listed_';
  return endpoints
    .map((e) => {
      const where = e.host ? code(`${e.host}${e.port === undefined ? '' : `:${e.port}`}`) : '';
      const user = e.username ? ` as ${code(e.username)}` : '';
      return `• ${esc(e.protocol)} ${where}${user}`;
    })
    .join('\n');
}

function ipAccessBlocks(s: ServiceRecord): Block[] {
  if (s.ipAccessList === undefined) return [section('*IP access list*\n_not in the record_')];
  if (s.ipAccessList.length === 0) return [section('*IP access list*\n:warning: empty: no client can connect')];
  const lines = s.ipAccessList.map((e) => `• ${code(e.source)}${e.description ? ` ${esc(e.description)}` : ''}`);
  const blocks = packLines(lines, 8, (hidden) => `_…and ${hidden} more entries_`);
  const [first, ...rest] = blocks;
  const title = `*IP access list* (${s.ipAccessList.length})`;
  const firstText = first?.type === 'section' && first.text ? `${title}\n${first.text.text}` : title;
  return [section(firstText), ...rest];
}

function privateEndpointText(s: ServiceRecord): string {
  const attached = s.privateEndpointIds ?? [];
  const available = (s.availablePrivateEndpointIds ?? []).filter((id) => !attached.includes(id));
  const list = (ids: string[]) => (ids.length === 0 ? '_none_' : ids.map(code).join(', '));
  return `*Private endpoints*\nattached: ${list(attached)}\navailable to attach: ${list(available)}`;
}

function encryptionText(s: ServiceRecord): string {
  if (s.hasTransparentDataEncryption === undefined) return '*Encryption*\n_not in the record_';
  // Not a warning: it can only be chosen when a service is created, in Enterprise organizations.
  if (!s.hasTransparentDataEncryption) {
    return '*Encryption*\ntransparent data encryption off _(it can only be turned on when a service is created, in Enterprise organizations)_';
  }
  const key = s.transparentDataEncryptionKeyId ? ` · key ${code(s.transparentDataEncryptionKeyId)}` : '';
  return `*Encryption*\ntransparent data encryption on${key}`;
}
