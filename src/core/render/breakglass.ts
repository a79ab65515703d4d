/**
 * Maintenance windows, freezes and break-glass for people: the window as a phrase, why a change
 * is refused or deferred, the break-glass refusals, its loud notice and its review message.
 */
import { changeSummary } from '../change/summary.js';
import { formatDuration } from '../change/temporary.js';
import type { ChangeRequest } from '../change/types.js';
import type { BreakGlassRefusal } from '../policy/breakglass.js';
import type { ChangeWindow, Freeze } from '../policy/types.js';
import { WEEKDAYS } from '../policy/types.js';
import type { Timing } from '../policy/window.js';
import { bold, code, context, esc, header, section, serviceRef, slackDate, type Block } from './mrkdwn.js';
import { channelRef, mention, people } from './people.js';

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** "Mon–Thu", "Mon, Wed, Fri", "every day": runs of three or more days joined by a dash, the week from Monday. */
export function daysText(days: ChangeWindow['days']): string {
  if (WEEKDAYS.every((day) => days.includes(day))) return 'every day';
  const positions = [1, 2, 3, 4, 5, 6, 0]
    .map((weekday, position) => ({ weekday, position }))
    .filter(({ weekday }) => days.includes(WEEKDAYS[weekday] ?? 'sun'));
  const runs: Array<typeof positions> = [];
  for (const day of positions) {
    const run = runs.at(-1);
    if (run && (run.at(-1)?.position ?? -2) + 1 === day.position) run.push(day);
    else runs.push([day]);
  }
  return runs
    .map((run) =>
      run.length >= 3
        ? `${DAY_NAMES[run[0]?.weekday ?? 0]}–${DAY_NAMES[run.at(-1)?.weekday ?? 0]}`
        : run.map(({ weekday }) => DAY_NAMES[weekday]).join(', '),
    )
    .join(', ');
}

const clock = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/** "Europe/Berlin" -> "Berlin", "America/New_York" -> "New York". */
export const zoneName = (tz: string) => (tz.split('/').at(-1) ?? tz).replaceAll('_', ' ');

/** "Mon–Thu 09:00–16:00 Berlin". */
export function windowText(window: ChangeWindow): string {
  return `${daysText(window.days)} ${clock(window.fromMinute)}–${clock(window.toMinute)} ${zoneName(window.tz)}`;
}

/** "2026-12-20 to 2027-01-04 (Year-end freeze)". */
export function freezeText(freeze: Freeze): string {
  return `${freeze.from} to ${freeze.to} (${freeze.reason})`;
}

/** A new request during a freeze: refused, with the rule's reason and when it ends. */
export function frozenText(timing: Extract<Timing, { kind: 'frozen' }>): string {
  return `:snowflake: Changes under the policy rule ${bold(timing.rule)} are frozen until ${slackDate(timing.until)}: “${esc(timing.freeze.reason)}”. Nothing was requested. Ask again after the freeze; if production cannot wait, someone on the break-glass list can use ${code('breakglass')}.`;
}

/** Windows that never open together within a year. */
export function neverOpenText(timing: Extract<Timing, { kind: 'never' }>): string {
  const windows = timing.rules.map((r) => `${bold(r.rule)}: ${esc(windowText(r.window))}`).join('; ');
  return `:warning: The maintenance windows of the rules this change falls under never open at the same time (${windows}), so it could never be applied. Nothing was requested; ask whoever keeps the policy file.`;
}

/**
 * Said with a change asked outside its window: when it will be applied instead
 * ("production changes are applied Mon–Thu 09:00–16:00 Berlin; this will apply at Mon 09:00 unless you cancel").
 */
export function deferredText(timing: Extract<Timing, { kind: 'deferred' }>): string {
  const windows = timing.rules
    .map((r) => `${bold(r.rule)} changes are applied ${esc(windowText(r.window))}`)
    .join('; ');
  return `:calendar: ${windows}; this will apply at ${slackDate(timing.at, '{date_short_pretty} {time}')} unless you cancel.`;
}

/** Extend clicked outside the grant's window: deferred, it would come after the revert it should push back. */
export function extensionOutsideWindowText(timing: Extract<Timing, { kind: 'deferred' }>): string {
  const windows = timing.rules.map((r) => `${bold(r.rule)}: ${esc(windowText(r.window))}`).join('; ');
  return `:calendar: An extension can only be asked while its window is open (${windows}): deferred to ${slackDate(timing.at, '{date_short_pretty} {time}')}, it would come after the grant is reverted. Nothing was requested; the grant is reverted as planned. Ask for it again when the window opens.`;
}

/** Every break-glass refusal, in a sentence saying what to do. */
export function breakGlassRefusalText(refusal: BreakGlassRefusal): string {
  switch (refusal.kind) {
    case 'no-list':
      return ':no_entry_sign: Break-glass is not set up here: the policy file lists nobody under `breakglass`. Ask for the change the usual way. Nothing was changed.';
    case 'not-listed':
      return `:no_entry_sign: Only the people on the policy file's break-glass list may break glass (${people(refusal.listed)}). Ask one of them, or ask for the change the usual way. Nothing was changed.`;
    case 'denied':
      return `:no_entry_sign: Break-glass never overrides a deny rule. The policy rule ${bold(refusal.rule)} says: ${esc(refusal.text)} Nothing was changed.`;
    case 'no-reason':
      return ':warning: Break-glass needs a reason that reviewers will read: add `because "INC-7 dashboards down"`. Nothing was changed.';
    case 'no-duration':
      return `:warning: Break-glass changes are temporary: end the command with \`for DURATION\` (at most ${formatDuration(refusal.maxMs)}). Only changes the bot can take back exactly (ip add, endpoint … on, scale, idle, stop, start) can break glass. Nothing was changed.`;
    case 'too-long':
      return `:warning: Break-glass lasts at most ${formatDuration(refusal.maxMs)} here (\`breakglass_max\`); you asked for ${formatDuration(refusal.askedMs)}. Ask for less and extend it later if needed. Nothing was changed.`;
  }
}

/** Who broke glass, on what, why and for how long: the channel's and the security channel's notice. */
export function breakGlassNotice(request: ChangeRequest): { text: string; blocks: Block[] } {
  const { plan } = request;
  const duration = request.temporary ? formatDuration(request.temporary.durationMs) : 'good';
  const outcome =
    request.status === 'applied'
      ? 'It was applied without approval.'
      : request.status === 'failed'
        ? `It was *not* applied: ${esc(request.outcome?.message ?? 'the update failed.')}`
        : 'It is being applied without approval.';
  const lines = [
    `:rotating_light: ${bold('Break-glass')}: ${mention(request.requesterId)} changed ${serviceRef(plan.serviceName, plan.serviceId)} for ${esc(duration)}: ${esc(changeSummary(plan.changes))}`,
    `*Why:* “${esc(request.reason ?? '')}”${request.ticket ? ` · ticket ${code(request.ticket)}` : ''}`,
    `${outcome} Asked in ${channelRef(request.channelId)}; request ${code(request.id)}. Approvers of its rules review it after the fact.`,
  ];
  return {
    text: esc(`Break-glass by ${request.requesterId} on ${plan.serviceName}: ${changeSummary(plan.changes)}`),
    blocks: [header('Break-glass change'), section(lines.join('\n'))],
  };
}

/** In place of a break-glass request's approval progress: the rules it skipped. */
export function breakGlassSkippedText(request: ChangeRequest): string {
  const rules = (request.requirements ?? []).map((r) => bold(r.rule)).join(', ');
  return `:rotating_light: *Break-glass*: applied without the approvals, windows and freezes of ${rules || 'its rules'}; approvers review it afterwards.`;
}

/** What the person who broke glass is told. */
export function breakGlassReplyText(request: ChangeRequest, reviewId: string | undefined): string {
  const id = code(request.id);
  const review = reviewId ? ` Approvers will review it (${code(reviewId)}).` : '';
  if (request.status === 'applied')
    return `:rotating_light: Break-glass ${id} was applied without approval and is announced in the channel and to security; ${request.temporary ? 'the bot takes it back when its time is up' : 'it stays (it contains a leak: nothing to take back)'}.${review}`;
  if (request.status === 'failed')
    return `:x: Break-glass ${id} was not applied: ${esc(request.outcome?.message ?? 'the update failed.')}`;
  return `:hourglass: Break-glass ${id} is being applied; the channel shows the outcome.${review}`;
}

/** The review of a break-glass change, as posted in its thread (with the Mark reviewed button while open). */
export function reviewBlocks(request: ChangeRequest, buttons: Block[]): Block[] {
  const original = request.reviewOf ?? '';
  const who = request.requirements?.[0]?.approvers ?? [];
  const reviewers = who.length > 0 ? people(who) : 'anyone in the channel but the person who broke glass';
  const state =
    request.status === 'applied'
      ? `:white_check_mark: *Reviewed* by ${mention(request.decidedBy)}${request.decidedAt ? ` at ${slackDate(request.decidedAt)}` : ''}.`
      : request.status === 'expired'
        ? `:hourglass_flowing_sand: *Not reviewed* by ${slackDate(request.expiresAt)}.`
        : request.status === 'pending'
          ? `Waiting for review by ${reviewers} · until ${slackDate(request.expiresAt)}`
          : `Review ${esc(request.status)}.`;
  return [
    section(
      `:mag: ${bold('Review needed')}: ${mention(request.requesterId)} broke glass with ${code(original)}${request.reason ? ` because “${esc(request.reason)}”` : ''}. An approver of its rules marks it reviewed after looking at what was done.`,
    ),
    context(`Review ${code(request.id)} · ${state}`),
    ...(request.status === 'pending' ? buttons : []),
  ];
}
