/**
 * Runs a parsed command: reads through the cached client, plans through the core, answers the
 * person privately, and posts change requests publicly for approval.
 */
import {
  asksForHashes,
  asksForKeys,
  hasLocalTimes,
  localizeIntent,
  resolveQueryKeys,
} from '../core/change/kinds/index.js';
import type { ChangeIntent } from '../core/change/types.js';
import { randomUUID } from 'node:crypto';
import { durationProblem, temporaryTerms } from '../core/change/temporary.js';
import type { Command, CommandKind } from '../core/command/parse.js';
import { pendingBlocks, problemsText } from '../core/render/change.js';
import {
  cloudErrorText,
  internalErrorText,
  messageOf,
  READ_FAILED_TEXT,
  STORE_DOWN_TEXT,
} from '../core/render/errors.js';
import { backupsBlocks } from '../core/render/backups.js';
import { keysBlocks } from '../core/render/keys.js';
import { queryEndpointBlocks } from '../core/render/query-endpoint.js';
import { upgradeWindowBlocks } from '../core/render/upgrade-window.js';
import { scalingScheduleBlocks, type ScheduleReading } from '../core/render/scaling-schedule.js';
import { membersBlocks, rolesBlocks } from '../core/render/members.js';
import { membersWithRole } from '../core/access/member.js';
import { healthBlocks } from '../core/render/health.js';
import { metricsReadable } from '../core/service/load.js';
import {
  helpBlocks,
  invalidBlocks,
  overviewBlocks,
  suggestionBlocks,
  topicHelpBlocks,
  type HelpContext,
} from '../core/render/help.js';
import { commandsOfTopic } from '../core/command/catalogue.js';
import { historyBlocks } from '../core/render/history.js';
import { policyBlocks, servicePolicyBlocks } from '../core/render/policy.js';
import { editMetadata, editView, loadingView, messageView } from '../core/render/modal.js';
import { filedText } from '../core/render/grant.js';
import { breakGlassReplyText, deferredText } from '../core/render/breakglass.js';
import type { NewChangeRequest } from '../ports/index.js';
import { scheduledFilingText } from '../core/render/scheduled.js';
import { resolveWhen, type WhenSpec } from '../core/command/when.js';
import { code, esc, section, type Block } from '../core/render/mrkdwn.js';
import { listBlocks } from '../core/render/service.js';
import { CloudApiError } from '../core/service/api-error.js';
import { isStoreUnavailable } from '../ports/store-errors.js';
import { commandRefusal, servicesOfChannel } from './channel.js';
import type { ServiceList } from '../ports/service-directory.js';
import { replyText, type BotServices, type Invocation } from './context.js';
import { lookupService, lookupTarget } from './lookup.js';
import { adHocSnapshotKey } from '../core/schedule/types.js';
import { addSchedule, listSchedules, removeSchedule } from './schedules.js';
import { showCapacitySpend, showCost } from './cost.js';
import { openPasswordHashForm } from './password-hashes.js';
import { showService } from './show.js';

const HISTORY_LIMIT = 20;

/** `at TIME` as an instant: read in its own tz:, else the channel's or the requester's zone. */
async function scheduleOf(when: WhenSpec, inv: Invocation, s: BotServices) {
  const { zone, source } = when.zone
    ? { zone: when.zone, source: 'command' as const }
    : await s.timeZoneOf(inv.channelId, inv.userId);
  const resolved = resolveWhen(when, s.now(), zone);
  return resolved.ok ? { ...resolved, source } : resolved;
}

/** The intent with the API keys it names (query-endpoint … keys A,B) looked up in GET …/keys, or why not. */
async function withKeys(
  intent: ChangeIntent,
  inv: Invocation,
  s: BotServices,
): Promise<{ ok: true; intent: ChangeIntent } | { ok: false; text: string }> {
  if (!asksForKeys(intent)) return { ok: true, intent };
  const { keys } = await s.cloud.listApiKeys({ person: inv.userId, priority: 'command' });
  const resolved = resolveQueryKeys(intent, keys);
  return resolved.ok ? resolved : { ok: false, text: `:warning: ${esc(resolved.text)}` };
}

/** The intent with its times of day (backup-config's `at 02:00`) read in the channel's or the requester's zone. */
async function localized(intent: ChangeIntent, inv: Invocation, s: BotServices): Promise<ChangeIntent> {
  if (!hasLocalTimes(intent)) return intent;
  const { zone } = await s.timeZoneOf(inv.channelId, inv.userId);
  return localizeIntent(intent, zone, s.now());
}

export async function runCommand(command: Command, inv: Invocation, everywhere: BotServices): Promise<void> {
  const here = servicesOfChannel(everywhere, inv.channelId);
  const refusal = here.ok ? commandRefusal(here.rules, command) : here.text;
  const services = here.ok ? here.services : everywhere;
  try {
    if (refusal !== undefined) return await replyText(inv, refusal);
    await dispatch(command, inv, services);
  } catch (error) {
    await inv.reply(failureMessage(error, command, services)).catch((replyError: unknown) => {
      services.logger.error(`could not answer ${command.kind}: ${messageOf(replyError)}`);
    });
  }
}

/**
 * The list as rendered, by the list read (the client hands out one object per cached read and
 * filter list): within the cache window every `list` reuses the blocks instead of rendering the
 * same services again, which was most of a command's CPU. Keyed also by the filters as written,
 * which the blocks repeat.
 */
const renderedLists = new WeakMap<ServiceList, Map<string, Block[]>>();

function renderedList(list: ServiceList, filters: readonly string[], consoleUrl?: string): Block[] {
  let byFilters = renderedLists.get(list);
  if (!byFilters) renderedLists.set(list, (byFilters = new Map<string, Block[]>()));
  const key = filters.join('\n');
  let blocks = byFilters.get(key);
  if (!blocks) byFilters.set(key, (blocks = listBlocks(list.services, filters, list.fetchedAt, consoleUrl)));
  return blocks;
}

/** What help needs to offer only what works here: the channel's rules, break-glass, a schedule's id. */
async function helpContext(inv: Invocation, s: BotServices): Promise<HelpContext> {
  const policy = s.approvalRules.current();
  // Help answers even with the store down: `schedule remove` then shows its usage alone.
  const schedules = await s.scheduleStore.listSchedules(inv.channelId).catch(() => []);
  const newest = schedules.at(-1);
  return {
    rules: s.channelRules ?? {},
    breakGlass: (policy?.breakglass ?? []).length > 0,
    temporaryMaxMs: s.temporaryMaxMs,
    ...(newest ? { scheduleId: newest.id } : {}),
  };
}

/** The kinds whose runner may offer its answer again (Invocation.offerAgain): only `list`. */
export const ANSWERS_GIVEN_AGAIN: ReadonlySet<CommandKind> = new Set<CommandKind>(['list']);

type Runner<K extends CommandKind> = (
  command: Extract<Command, { kind: K }>,
  inv: Invocation,
  s: BotServices,
) => Promise<void>;

/** One runner per command kind: a kind without one is a type error, not a silent no-op. */
const RUNNERS: { [K in CommandKind]: Runner<K> } = {
  help: async (command, inv, s) =>
    command.overview
      ? inv.reply({
          text: 'ClickHouse Cloud bot: where to start',
          blocks: overviewBlocks(s.slashCommand, await helpContext(inv, s)),
        })
      : command.topic === undefined
        ? inv.reply({
            text: 'ClickHouse Cloud bot commands',
            blocks: helpBlocks(s.slashCommand, undefined, await helpContext(inv, s)),
          })
        : inv.reply({
            text: `Help: ${esc(command.topic)}`,
            blocks: topicHelpBlocks(
              s.slashCommand,
              command.topic,
              commandsOfTopic(command.topic),
              await helpContext(inv, s),
            ),
          }),
  unknown: async (command, inv, s) =>
    command.suggestions
      ? inv.reply({
          text: `Unknown command ${esc(command.word)}; did you mean ${esc(command.suggestions.join(' or '))}?`,
          blocks: suggestionBlocks(s.slashCommand, command.word, command.suggestions),
        })
      : inv.reply({
          text: `Unknown command ${esc(command.word)}`,
          blocks: helpBlocks(
            s.slashCommand,
            `:grey_question: ${code(command.word)} is not a command I know. Here is what I can do:`,
            await helpContext(inv, s),
          ),
        }),
  invalid: (command, inv, s) =>
    inv.reply({ text: esc(command.message), blocks: invalidBlocks(s.slashCommand, command.message, command.usage) }),
  list: async (command, inv, s) => {
    const list = await s.cloud.listServices(command.filters, { person: inv.userId, priority: 'command' });
    const answer = {
      text: `${list.services.length} ClickHouse Cloud services`,
      blocks: renderedList(list, command.filters, s.consoleUrl),
    };
    await inv.reply(answer);
    // The same list, to whoever types the same command here within the cache window; in every
    // channel when there are no organizations (ORGANIZATIONS_FILE) to give channels their own.
    if (list.cachedUntil !== undefined) inv.offerAgain?.(answer, list.cachedUntil, s.tenants === undefined);
  },
  show: (command, inv, s) => showService(command.service, inv, s),
  backups: async (command, inv, s) => {
    const found = await lookupService(s, command.service, inv.userId);
    if (!found.ok) return replyText(inv, found.text);
    const read = await s.cloud.readBackups(found.service.id, { person: inv.userId, priority: 'command' });
    return inv.reply({
      text: `Backups of ${esc(found.service.name)}`,
      blocks: backupsBlocks(found.service, read.backups, read.configuration),
    });
  },
  health: async (command, inv, s) => {
    const found = await lookupService(s, command.service, inv.userId);
    if (!found.ok) return replyText(inv, found.text);
    const load = metricsReadable(found.service)
      ? await s.cloud.readLoad(found.service.id, { person: inv.userId, priority: 'command' })
      : undefined;
    return inv.reply({ text: `Health of ${esc(found.service.name)}`, blocks: healthBlocks(found.service, load) });
  },
  members: async (command, inv, s) => {
    const reading = { person: inv.userId, priority: 'command' } as const;
    const [members, roles] = await Promise.all([s.cloud.listMembers(reading), s.cloud.listRoles(reading)]);
    const chosen = membersWithRole(members, command.role);
    return inv.reply({ text: `${chosen.length} members`, blocks: membersBlocks(chosen, command.role, roles) });
  },
  roles: async (_command, inv, s) => {
    const roles = await s.cloud.listRoles({ person: inv.userId, priority: 'command' });
    return inv.reply({ text: `${roles.length} roles`, blocks: rolesBlocks(roles) });
  },
  'query-endpoint': async (command, inv, s) => {
    const found = await lookupService(s, command.service, inv.userId);
    if (!found.ok) return replyText(inv, found.text);
    const reading = { person: inv.userId, priority: 'command' } as const;
    const endpoint = await s.cloud.readQueryEndpoint(found.service.id, reading);
    // The keys are read only to name those the endpoint allows.
    const keys = endpoint && endpoint.openApiKeys.length > 0 ? (await s.cloud.listApiKeys(reading)).keys : [];
    return inv.reply({
      text: `Query API endpoint of ${esc(found.service.name)}`,
      blocks: queryEndpointBlocks(found.service, endpoint, keys),
    });
  },
  'upgrade-window': async (command, inv, s) => {
    const found = await lookupService(s, command.service, inv.userId);
    if (!found.ok) return replyText(inv, found.text);
    const window = await s.cloud.readUpgradeWindow(found.service.id, { person: inv.userId, priority: 'command' });
    return inv.reply({
      text: `Upgrade window of ${esc(found.service.name)}`,
      blocks: upgradeWindowBlocks(found.service, window, Date.now()),
    });
  },
  'scaling-schedule': async (command, inv, s) => {
    const found = await lookupService(s, command.service, inv.userId);
    if (!found.ok) return replyText(inv, found.text);
    const reading: ScheduleReading = await s.cloud
      .readScalingSchedule(found.service.id, { person: inv.userId, priority: 'command' })
      .then(
        (schedule): ScheduleReading => (schedule ? { kind: 'schedule', schedule } : { kind: 'none' }),
        (error: unknown): ScheduleReading => {
          if (error instanceof CloudApiError && error.status === 403) return { kind: 'not-enabled' };
          throw error;
        },
      );
    return inv.reply({
      text: `Scaling schedule of ${esc(found.service.name)}`,
      blocks: scalingScheduleBlocks(found.service, reading),
    });
  },
  keys: async (_command, inv, s) => {
    const listed = await s.cloud.listApiKeys({ person: inv.userId, priority: 'command' });
    return inv.reply({
      text: `${listed.keys.length} API keys`,
      blocks: keysBlocks(listed.keys, Date.now(), listed.ownKeyId),
    });
  },
  edit: (command, inv, s) => openEditModal(command.service, inv, s),
  change: async (command, inv, s) => {
    // reset-password … with-hash: the hashes come from a form, filed when it is submitted.
    if (asksForHashes(command.intent)) return openPasswordHashForm(command, inv, s);
    const asked = await changeInput(command, inv, s);
    if (!asked.ok) return replyText(inv, asked.text);
    const result = await s.changeRequests.request(asked.input);
    if (!result.ok) return replyText(inv, 'text' in result ? result.text : problemsText(result.problems));
    await replyText(inv, filingReply(result, asked.schedule));
    // A capacity request: the service's compute spend and the change's estimate, in its thread.
    return showCapacitySpend(result.request, asked.input.service, command.intent, s);
  },
  breakglass: async (command, inv, s) => {
    const asked = await changeInput(command.change, inv, s);
    if (!asked.ok) return replyText(inv, asked.text);
    const result = await s.changeRequests.breakGlass(asked.input);
    if (result.ok) return replyText(inv, breakGlassReplyText(result.request, result.reviewId));
    if ('text' in result) return replyText(inv, result.text);
    return replyText(inv, problemsText(result.problems));
  },
  pending: async (_command, inv, s) => {
    const requests = await s.changeStore.listPending(inv.channelId, Date.now());
    return inv.reply({ text: `${requests.length} pending change requests`, blocks: pendingBlocks(requests) });
  },
  temporary: async (_command, inv, s) => inv.reply(await s.temporary.list(inv.channelId)),
  history: (command, inv, s) => showHistory(command.service, inv, s),
  policy: (command, inv, s) => showPolicy(command.service, inv, s),
  summary: (command, inv, s) => postSummaryNow(command.filters, inv, s),
  cost: (command, inv, s) => showCost(command, inv, s),
  'schedule add': (command, inv, s) => addSchedule(command, inv, s),
  'schedule list': (_command, inv, s) => listSchedules(inv, s),
  'schedule remove': (command, inv, s) => removeSchedule(command.id, inv, s),
};

/** What the requester is told once a change is filed: waiting, deferred to its window, or scheduled. */
function filingReply(
  result: Extract<Awaited<ReturnType<BotServices['changeRequests']['request']>>, { ok: true }>,
  schedule: Extract<Awaited<ReturnType<typeof changeInput>>, { ok: true }>['schedule'],
): string {
  const filed = filedText(result.request, 'the channel');
  // Outside a maintenance window: deferred to its next opening (whatever time was asked).
  if (result.deferred) return `${filed}\n${deferredText(result.deferred)}`;
  // No time kept with the request (it had passed by the time it was filed): an ordinary request, said as one.
  if (!schedule || result.request.applyAt === undefined) return filed;
  const approved = result.request.status === 'scheduled';
  return `${filed} ${esc(scheduledFilingText(schedule.at, schedule.zone, schedule.source, approved))}`;
}

/** A change command as the middle layer takes it: its service looked up, its duration checked. */
async function changeInput(command: Extract<Command, { kind: 'change' }>, inv: Invocation, s: BotServices) {
  const tooLong = command.durationMs === undefined ? undefined : durationProblem(command.durationMs, s.temporaryMaxMs);
  if (tooLong) return { ok: false as const, text: `:warning: ${esc(tooLong)}` };
  const schedule = command.when ? await scheduleOf(command.when, inv, s) : undefined;
  if (schedule && !schedule.ok) return { ok: false as const, text: `:warning: ${esc(schedule.message)}` };
  const found = await lookupTarget(s, command.target, command.service, inv.userId);
  if (!found.ok) return found;
  const keyed = await withKeys(command.intent, inv, s);
  if (!keyed.ok) return keyed;
  const temporary = command.durationMs === undefined ? {} : { temporary: temporaryTerms(command.durationMs) };
  const input: NewChangeRequest = {
    channelId: inv.channelId,
    userId: inv.userId,
    service: found.service,
    serviceReadAt: found.readAt,
    intent: await localized(keyed.intent, inv, s),
    ...temporary,
    ...(command.reason !== undefined ? { reason: command.reason } : {}),
    ...(command.ticket !== undefined ? { ticket: command.ticket } : {}),
    askedBy: 'command',
    ...(schedule ? { applyAt: schedule.at } : {}),
  };
  return { ok: true as const, input, ...(schedule ? { schedule } : {}) };
}

function dispatch<K extends CommandKind>(
  command: Extract<Command, { kind: K }>,
  inv: Invocation,
  s: BotServices,
): Promise<void> {
  const run: Runner<K> = RUNNERS[command.kind];
  return run(command, inv, s);
}

async function openEditModal(query: string, inv: Invocation, s: BotServices): Promise<void> {
  const opened = await s.modals.open(inv.triggerId, loadingView());
  try {
    const found = await lookupService(s, query, inv.userId);
    const view = found.ok
      ? editView(found.service, editMetadata(found.service, inv.channelId), s.temporaryMaxMs)
      : messageView(found.text);
    await s.modals.update(opened.viewId, view, opened.hash);
  } catch (error) {
    const text = error instanceof CloudApiError ? cloudErrorText(error, 'Reading the service') : READ_FAILED_TEXT;
    await s.modals.update(opened.viewId, messageView(text), opened.hash);
  }
}

async function postSummaryNow(filters: string[], inv: Invocation, s: BotServices): Promise<void> {
  await inv.reply({
    text: 'Preparing the summary…',
    blocks: [section(':hourglass: Preparing the summary for this channel…')],
  });
  const outcome = await s.summaries.post({
    channelId: inv.channelId,
    filters,
    snapshotKey: adHocSnapshotKey(inv.channelId, filters),
    reader: inv.userId,
  });
  if (!outcome.ok) await replyText(inv, outcome.text);
}

async function showPolicy(query: string | undefined, inv: Invocation, s: BotServices): Promise<void> {
  const { approvalRules } = s;
  if (query === undefined)
    return inv.reply({
      text: 'Approval policy',
      blocks: policyBlocks(approvalRules.current(), approvalRules.defaults),
    });
  const found = await lookupService(s, query, inv.userId);
  if (!found.ok) return inv.reply({ text: found.text, blocks: [section(found.text)] });
  return inv.reply({
    text: `Approval rules for ${esc(found.service.name)}`,
    blocks: servicePolicyBlocks(approvalRules.current(), found.service, approvalRules.defaults, s.now()),
  });
}

/** Only the requests of the channel it is typed in: a private channel's changes stay there. */
async function showHistory(query: string | undefined, inv: Invocation, s: BotServices): Promise<void> {
  const record = async (serviceId?: string) => ({
    entries: await s.changeStore.readAudit({
      channelId: inv.channelId,
      ...(serviceId ? { serviceId } : {}),
      limit: HISTORY_LIMIT,
    }),
    reach: { beginsAt: await s.changeStore.auditBeginsAt(), retentionDays: s.auditRetentionDays },
  });
  if (query === undefined) {
    const { entries, reach } = await record();
    return inv.reply({ text: 'Recent change history of this channel', blocks: historyBlocks(entries, reach) });
  }
  const found = await lookupService(s, query, inv.userId);
  if (!found.ok) return replyText(inv, found.text);
  const { entries, reach } = await record(found.service.id);
  return inv.reply({
    text: `History of ${esc(found.service.name)}`,
    blocks: historyBlocks(entries, reach, found.service.name),
  });
}

/** Known failures get their sentence; anything else a reference the operators can find in the log. */
function failureMessage(error: unknown, command: Command, s: BotServices) {
  if (error instanceof CloudApiError) {
    const text = cloudErrorText(error, `/clickhouse ${command.kind}`);
    return { text, blocks: [section(text)] };
  }
  if (isStoreUnavailable(error)) {
    s.logger.error(`command ${command.kind}: store unavailable: ${messageOf(error)}`);
    return { text: STORE_DOWN_TEXT, blocks: [section(STORE_DOWN_TEXT)] };
  }
  const ref = randomUUID().slice(0, 8);
  s.logger.error(`command ${command.kind} failed (ref ${ref}):`, error);
  const text = internalErrorText(ref);
  return { text, blocks: [section(text)] };
}
