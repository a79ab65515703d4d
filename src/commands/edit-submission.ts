/**
 * The edit modal's submission. Slack wants an answer within 3 s, and inline errors can only be
 * given in that answer, so the service is read with a deadline: in time, problems are shown in the
 * modal; too slow, the modal closes and problems arrive as a private message in the channel.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { deferredText } from '../core/render/breakglass.js';
import { planChange } from '../core/change/plan.js';
import { durationProblem, temporaryPlanProblem, temporaryTerms } from '../core/change/temporary.js';
import { cloudErrorText, EDIT_FAILED_TEXT, messageOf, STORE_DOWN_TEXT } from '../core/render/errors.js';
import { applyAtProblem, applyAtProblemText, localLabel, type ApplyAtProblem } from '../core/command/when.js';
import {
  applyAtFromSubmission,
  BLOCK,
  durationFromSubmission,
  readSubmission,
  justificationFromSubmission,
  modalErrors,
  type EditMetadata,
  type ViewState,
} from '../core/render/modal.js';
import { code, distinctSentences, esc, section } from '../core/render/mrkdwn.js';
import { CloudApiError } from '../core/service/api-error.js';
import type { ChangePlan } from '../core/change/types.js';
import { evaluatePolicy } from '../core/policy/evaluate.js';
import { requestFacts } from '../core/policy/facts.js';
import { unjustified, type Justification } from '../core/policy/justification.js';
import { justificationErrors } from '../core/render/modal.js';
import type { ServiceRecord } from '../core/service/schema.js';
import type { Messenger } from '../ports/messenger.js';
import { isStoreUnavailable } from '../ports/store-errors.js';
import { servicesOfChannel } from './channel.js';
import type { BotServices } from './context.js';

export const SUBMIT_DEADLINE_MS = 2_000;

export interface EditSubmission {
  metadata: EditMetadata;
  userId: string;
  values: ViewState;
}

/** ack(errors) shows inline errors; ack() closes the modal. It must be called exactly once. */
export type SubmissionAck = (errors?: Record<string, string>) => Promise<void>;

/** Served by the organization of the channel the form was opened in, within its guardrails. */
export async function submitEdit(
  submission: EditSubmission,
  ack: SubmissionAck,
  everywhere: BotServices,
  messenger: Messenger,
): Promise<void> {
  const here = servicesOfChannel(everywhere, submission.metadata.channelId);
  if (here.ok) return submitInChannel(submission, ack, here.services, messenger);
  await ack();
  await tell(messenger, submission, here.text, everywhere);
}

async function submitInChannel(
  submission: EditSubmission,
  ack: SubmissionAck,
  s: BotServices,
  messenger: Messenger,
): Promise<void> {
  const { intent, problems: unreadable } = readSubmission(submission.values, submission.metadata.shown);
  if (Object.keys(unreadable).length > 0) return ack(unreadable);
  const chosen = durationFromSubmission(submission.values);
  const durationError = chosen && ('problem' in chosen ? chosen.problem : durationProblem(chosen.ms, s.temporaryMaxMs));
  if (durationError) return ack({ [BLOCK.duration]: durationError });
  const picked = applyAtFromSubmission(submission.values);
  if (picked && 'problem' in picked) return ack({ [BLOCK.applyAt]: picked.problem });
  const timeProblem = picked && applyAtProblem(picked.at, s.now());
  if (picked && timeProblem)
    return ack({ [BLOCK.applyAt]: await pickedTimeText(s, submission, picked.at, timeProblem) });
  const justified = justificationFromSubmission(submission.values);
  if (!justified.ok) return ack(justified.errors);
  const temporary = chosen && 'ms' in chosen ? { temporary: temporaryTerms(chosen.ms) } : {};
  const reading = readService(s, submission.metadata.serviceId, submission.userId).catch((error: unknown): Read => ({
    ok: false,
    text: failureText(error, s),
  }));
  const early = await Promise.race([reading, sleep(SUBMIT_DEADLINE_MS).then(() => undefined)]);
  if (early?.ok) {
    const plan = planChange(early.service, intent);
    if (!plan.ok) return ack(modalErrors(plan.problems));
    const notTemporary = temporary.temporary && temporaryPlanProblem(intent, plan.plan);
    if (notTemporary) return ack({ [BLOCK.duration]: notTemporary });
    // A reason or ticket a rule asks for is shown in the form while it is open; the flow checks
    // again on a fresh read when the request is filed (and answers privately if the form closed).
    const lacking = lackingJustification(s, early.service, plan.plan, justified.justification);
    if (lacking) return ack(lacking);
  }
  await ack();
  // The modal is closed now: every outcome from here on must reach the person as a message.
  const whisper = (text: string) => tell(messenger, submission, text, s);
  try {
    const read = early ?? (await reading);
    if (!read.ok) return await whisper(read.text);
    const result = await s.changeRequests.request({
      channelId: submission.metadata.channelId,
      userId: submission.userId,
      service: read.service,
      intent,
      ...temporary,
      ...justified.justification,
      askedBy: 'form',
      // As `at TIME` files it: approved before then, it waits in "scheduled" for this time.
      ...(picked ? { applyAt: picked.at } : {}),
    });
    // Asked outside a maintenance window: the person learns when it will apply instead.
    if (result.ok) return result.deferred ? await whisper(deferredText(result.deferred)) : undefined;
    await whisper(
      'text' in result
        ? result.text
        : `:warning: Your change was not requested: ${distinctSentences(result.problems.map((p) => p.message))
            .map(esc)
            .join(' ')}`,
    );
  } catch (error) {
    await whisper(failureText(error, s));
  }
}

/**
 * The refusal of a picked time, as `at TIME`'s, with the time in the zone a command's would be
 * read in (the channel's, else the person's). Looking that up may ask Slack, so within the
 * submission's deadline; past it, in UTC: the modal must still answer in time.
 */
async function pickedTimeText(
  s: BotServices,
  submission: EditSubmission,
  at: number,
  problem: ApplyAtProblem,
): Promise<string> {
  const { channelId } = submission.metadata;
  const zone = await Promise.race([
    s.timeZoneOf(channelId, submission.userId).then(
      (found) => found.zone,
      () => 'UTC',
    ),
    sleep(SUBMIT_DEADLINE_MS).then(() => 'UTC'),
  ]);
  return applyAtProblemText(problem, localLabel(at, zone), 'form');
}

function lackingJustification(
  s: BotServices,
  service: ServiceRecord,
  plan: ChangePlan,
  given: Justification,
): Record<string, string> | undefined {
  const decision = evaluatePolicy(s.approvalRules.current(), requestFacts(service, plan), s.approvalRules.defaults);
  if (decision.kind === 'deny') return undefined;
  const lacking = unjustified(decision.requirements, given);
  if (!lacking) return undefined;
  return justificationErrors(lacking);
}

function failureText(error: unknown, s: BotServices): string {
  if (error instanceof CloudApiError) return cloudErrorText(error, 'Reading the service');
  s.logger.error(`edit submission failed: ${messageOf(error)}`);
  return isStoreUnavailable(error) ? STORE_DOWN_TEXT : EDIT_FAILED_TEXT;
}

/** Privately in the channel; where the bot cannot post there, in its direct messages instead. */
async function tell(messenger: Messenger, submission: EditSubmission, text: string, s: BotServices): Promise<void> {
  const message = { text, blocks: [section(text)] };
  try {
    await messenger.ephemeral(submission.metadata.channelId, submission.userId, message);
  } catch {
    await messenger.post(submission.userId, message).catch((error: unknown) => {
      s.logger.error(`could not tell ${submission.userId} about their edit: ${messageOf(error)}`);
    });
  }
}

type Read = { ok: true; service: ServiceRecord } | { ok: false; text: string };

async function readService(s: BotServices, serviceId: string, person: string): Promise<Read> {
  try {
    const service = await s.cloud.getService(serviceId, { person, priority: 'command' });
    return service
      ? { ok: true, service }
      : { ok: false, text: `:grey_question: Service ${code(serviceId)} no longer exists, so nothing was requested.` };
  } catch (error) {
    if (error instanceof CloudApiError) return { ok: false, text: cloudErrorText(error, 'Reading the service') };
    throw error;
  }
}
