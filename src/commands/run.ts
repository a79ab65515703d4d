/**
 * Runs a parsed command: reads through the cached client, plans through the core, answers the
 * person privately, and posts change requests publicly for approval.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from '../core/command/parse.js';
import { pendingBlocks } from '../core/render/change.js';
import { cloudErrorText, STORE_DOWN_TEXT } from '../core/render/errors.js';
import { helpBlocks, invalidBlocks } from '../core/render/help.js';
import { historyBlocks } from '../core/render/history.js';
import { policyBlocks, servicePolicyBlocks } from '../core/render/policy.js';
import { editMetadata, editView, loadingView, messageView } from '../core/render/modal.js';
import { code, esc, section } from '../core/render/mrkdwn.js';
import { listBlocks, serviceBlocks } from '../core/render/service.js';
import { CloudApiError } from '../core/service/api-error.js';
import { isStoreUnavailable } from '../ports/store-errors.js';
import type { BotServices, Invocation } from './context.js';
import { lookupService } from './lookup.js';
import { addSchedule, listSchedules, removeSchedule } from './schedules.js';

const HISTORY_LIMIT = 20;

export async function runCommand(command: Command, inv: Invocation, services: BotServices): Promise<void> {
  try {
    await dispatch(command, inv, services);
  } catch (error) {
    await inv.reply(failureMessage(error, command, services)).catch((replyError: unknown) => {
      services.logger.error(`could not answer ${command.kind}: ${String(replyError)}`);
    });
  }
}

async function dispatch(command: Command, inv: Invocation, s: BotServices): Promise<void> {
  const text = (blocksText: string, blocks = [section(blocksText)]) => inv.reply({ text: blocksText, blocks });
  switch (command.kind) {
    case 'help':
      return inv.reply({ text: 'ClickHouse Cloud bot commands', blocks: helpBlocks(s.slashCommand) });
    case 'unknown':
      return inv.reply({
        text: `Unknown command ${esc(command.word)}`,
        blocks: helpBlocks(s.slashCommand, `:grey_question: ${code(command.word)} is not a command I know. Here is what I can do:`),
      });
    case 'invalid':
      return inv.reply({ text: esc(command.message), blocks: invalidBlocks(s.slashCommand, command.message, command.usage) });
    case 'list': {
      const list = await s.cloud.listServices(command.filters);
      return inv.reply({ text: `${list.services.length} ClickHouse Cloud services`, blocks: listBlocks(list.services, command.filters, list.fetchedAt) });
    }
    case 'show': {
      const found = await lookupService(s, command.service);
      if (!found.ok) return text(found.text);
      return inv.reply({ text: `Service ${esc(found.service.name)}`, blocks: serviceBlocks(found.service) });
    }
    case 'edit':
      return openEditModal(command.service, inv, s);
    case 'change': {
      const found = await lookupService(s, command.service);
      if (!found.ok) return text(found.text);
      const result = await s.changeRequests.request({ channelId: inv.channelId, userId: inv.userId, service: found.service, intent: command.intent });
      if (result.ok) return text(`:memo: Change request ${code(result.request.id)} is posted in the channel and waits for a colleague's approval.`);
      if ('text' in result) return text(result.text);
      return text(`:warning: ${result.problems.map((p) => esc(p.message)).join('\n')}`);
    }
    case 'pending': {
      const requests = await s.changeStore.listPending(inv.channelId, Date.now());
      return inv.reply({ text: `${requests.length} pending change requests`, blocks: pendingBlocks(requests) });
    }
    case 'history':
      return showHistory(command.service, inv, s);
    case 'policy':
      return showPolicy(command.service, inv, s);
    case 'summary':
      return postSummaryNow(command.filters, inv, s);
    case 'schedule-add':
      return addSchedule(command, inv, s);
    case 'schedule-list':
      return listSchedules(inv, s);
    case 'schedule-remove':
      return removeSchedule(command.id, inv, s);
  }
}

async function openEditModal(query: string, inv: Invocation, s: BotServices): Promise<void> {
  const opened = await s.modals.open(inv.triggerId, loadingView());
  try {
    const found = await lookupService(s, query);
    const view = found.ok ? editView(found.service, editMetadata(found.service, inv.channelId)) : messageView(found.text);
    await s.modals.update(opened.viewId, view, opened.hash);
  } catch (error) {
    const text = error instanceof CloudApiError ? cloudErrorText(error, 'Reading the service') : ':x: Something went wrong while reading the service.';
    await s.modals.update(opened.viewId, messageView(text), opened.hash);
  }
}

async function postSummaryNow(filters: string[], inv: Invocation, s: BotServices): Promise<void> {
  await inv.reply({ text: 'Preparing the summary…', blocks: [section(':hourglass: Preparing the summary for this channel…')] });
  const outcome = await s.summaries.post({ channelId: inv.channelId, filters, snapshotKey: adHocSnapshotKey(inv.channelId, filters) });
  if (!outcome.ok) await inv.reply({ text: outcome.text, blocks: [section(outcome.text)] });
}

/** Ad-hoc summaries of a channel compare against the previous one with the same filters. */
const adHocSnapshotKey = (channelId: string, filters: string[]) => `adhoc:${channelId}:${[...filters].sort().join('&')}`;

async function showPolicy(query: string | undefined, inv: Invocation, s: BotServices): Promise<void> {
  const { approvalRules } = s;
  if (query === undefined) return inv.reply({ text: 'Approval policy', blocks: policyBlocks(approvalRules.current(), approvalRules.defaults) });
  const found = await lookupService(s, query);
  if (!found.ok) return inv.reply({ text: found.text, blocks: [section(found.text)] });
  return inv.reply({ text: `Approval rules for ${esc(found.service.name)}`, blocks: servicePolicyBlocks(approvalRules.current(), found.service, approvalRules.defaults) });
}

async function showHistory(query: string | undefined, inv: Invocation, s: BotServices): Promise<void> {
  if (query === undefined) {
    const entries = await s.changeStore.readAudit({ limit: HISTORY_LIMIT });
    return inv.reply({ text: 'Recent change history', blocks: historyBlocks(entries) });
  }
  const found = await lookupService(s, query);
  if (!found.ok) return inv.reply({ text: found.text, blocks: [section(found.text)] });
  const entries = await s.changeStore.readAudit({ serviceId: found.service.id, limit: HISTORY_LIMIT });
  return inv.reply({ text: `History of ${esc(found.service.name)}`, blocks: historyBlocks(entries, found.service.name) });
}

/** Known failures get their sentence; anything else a reference the operators can find in the log. */
function failureMessage(error: unknown, command: Command, s: BotServices) {
  if (error instanceof CloudApiError) {
    const text = cloudErrorText(error, `/clickhouse ${command.kind}`);
    return { text, blocks: [section(text)] };
  }
  if (isStoreUnavailable(error)) {
    s.logger.error(`command ${command.kind}: store unavailable: ${error instanceof Error ? error.message : String(error)}`);
    return { text: STORE_DOWN_TEXT, blocks: [section(STORE_DOWN_TEXT)] };
  }
  const ref = randomUUID().slice(0, 8);
  s.logger.error(`command ${command.kind} failed (ref ${ref}):`, error);
  const text = `:x: Something went wrong on the bot's side, so nothing was changed. Try again; if it keeps happening, give whoever runs the bot this reference: ${code(ref)}.`;
  return { text, blocks: [section(text)] };
}
