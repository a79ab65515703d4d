import type { AllMiddlewareArgs, SlackActionMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_REJECT } from '../../../core/render/change.js';
import { clickFailureText, messageOf } from '../../../core/render/errors.js';
import type { ClickOrigin, Decision } from '../../../ports/approval-policy.js';
import { isStoreUnavailable } from '../../../ports/store-errors.js';
import { section } from '../../../core/render/mrkdwn.js';
import { rejectView } from '../../../core/render/reject-form.js';
import { confirmView } from '../../../core/render/confirm-form.js';
import { replyTo } from '../../respond.js';
import type { ListenerDeps } from '../deps.js';

/** The button of each decision; the compiler checks that every decision has one. */
const DECISION_ACTIONS: Record<Decision, string> = {
  approve: ACTION_APPROVE,
  reject: ACTION_REJECT,
  cancel: ACTION_CANCEL,
};

/** The listener of each decision button, by action id (listeners/index.ts registers them with Bolt). */
export function decisionButtons(deps: ListenerDeps): Record<string, (args: ActionArgs) => Promise<void>> {
  const buttons: Record<string, (args: ActionArgs) => Promise<void>> = {};
  for (const [decision, actionId] of Object.entries(DECISION_ACTIONS) as Array<[Decision, string]>)
    buttons[actionId] =
      decision === 'reject'
        ? rejectListener(deps)
        : decision === 'approve'
          ? approveListener(deps)
          : decisionListener(decision, deps);
  return buttons;
}

/** The channel (or DM) a button was clicked in; none in the Home tab, whose container is the view. */
const ClickPlace = z.object({
  channel: z.object({ id: z.string().min(1) }).optional(),
  container: z.object({ channel_id: z.string().min(1).optional() }).optional(),
});

/** Where a click came from: the policy judges one from outside the request's channel (the Home tab, a DM). */
export function originOf(body: unknown): ClickOrigin {
  const place = ClickPlace.safeParse(body).data;
  const channelId = place?.channel?.id ?? place?.container?.channel_id;
  return channelId ? { channelId } : {};
}

/** What opening the Reject form needs from a click: its trigger (valid 3 s). */
const FormTrigger = z.object({ trigger_id: z.string().min(1) });

/**
 * Reject asks for a reason in a small form; its submission rejects (views/reject-reason.ts).
 * Without a trigger, or when the form cannot be opened, it rejects at once as it always did.
 */
export function rejectListener(deps: ListenerDeps) {
  const direct = decisionListener('reject', deps);
  return async (args: ActionArgs): Promise<void> => {
    const trigger = FormTrigger.safeParse(args.body).data;
    const [action] = ButtonClick.safeParse(args.body).data?.actions ?? [];
    if (!trigger || !action) return direct(args);
    await args.ack();
    // Someone who may not reject (or a request already settled) is told so at once, not after
    // filling in the form: the click goes the usual way, which refuses it with a sentence.
    const origin = originOf(args.body);
    const may = await deps.services.changeRequests
      .mayReject?.(action.value, args.body.user.id, origin)
      .catch(() => true);
    if (may === false) return decideClick('reject', args.body, deps);
    const { channelId } = origin;
    try {
      await deps.services.modals.open(
        trigger.trigger_id,
        rejectView({ requestId: action.value, ...(channelId ? { channelId } : {}) }),
      );
    } catch (error) {
      deps.services.logger.warn(
        `could not open the Reject form for ${action.value} (${messageOf(error)}); rejecting without a reason`,
      );
      await decideClick('reject', args.body, deps);
    }
  };
}

/**
 * Approve of a change that cannot be taken back (a delete) opens a form asking for the target's
 * name (views/confirm-name.ts); any other approves at once. The flow refuses an approval of such a
 * change without the name, so a click that cannot open the form is told to try again.
 */
export function approveListener(deps: ListenerDeps) {
  const direct = decisionListener('approve', deps);
  return async (args: ActionArgs): Promise<void> => {
    const trigger = FormTrigger.safeParse(args.body).data;
    const [action] = ButtonClick.safeParse(args.body).data?.actions ?? [];
    if (!trigger || !action || !deps.services.changeRequests.nameToConfirm) return direct(args);
    await args.ack();
    const name = await deps.services.changeRequests.nameToConfirm(action.value).catch(() => undefined);
    if (name === undefined) return decideClick('approve', args.body, deps);
    const { channelId } = originOf(args.body);
    try {
      await deps.services.modals.open(
        trigger.trigger_id,
        confirmView({ requestId: action.value, name, ...(channelId ? { channelId } : {}) }),
      );
    } catch (error) {
      deps.services.logger.warn(`could not open the Approve form for ${action.value}: ${messageOf(error)}`);
      // Refused with a sentence by the flow: the name was not typed.
      await decideClick('approve', args.body, deps);
    }
  };
}

/** The parts of a block_actions payload we rely on. */
export const ButtonClick = z.object({
  user: z.object({ id: z.string().min(1) }),
  actions: z.array(z.object({ value: z.string().min(1).max(64) })).min(1),
});

/** Where the person who clicked can be answered, read apart so that a broken click is still answered. */
const AnswerTo = ClickPlace.extend({
  // Absent from some payloads (Slack promises it for message buttons only): then an ephemeral message.
  response_url: z.string().url().optional(),
  user: z.object({ id: z.string().min(1) }),
});

export type ActionArgs = SlackActionMiddlewareArgs & AllMiddlewareArgs;

/**
 * Answers only whoever clicked: through the click's response_url, or, when the payload has none,
 * as an ephemeral message in the channel, or (a click in the Home tab) by DM; never an exception
 * nobody sees.
 */
export function whisperToClicker(
  body: unknown,
  deps: Pick<ListenerDeps, 'messenger' | 'services'>,
): (text: string) => Promise<void> {
  const to = AnswerTo.safeParse(body).data;
  const { channelId } = originOf(body);
  const userId = to?.user.id;
  const send = to?.response_url
    ? replyTo(to.response_url, { replaceOriginal: false })
    : channelId && userId
      ? (message: { text: string }) =>
          deps.messenger.ephemeral(channelId, userId, { text: message.text, blocks: [section(message.text)] })
      : userId
        ? // A click in the Home tab has neither: the answer goes by DM.
          (message: { text: string }) =>
            deps.messenger.dm(userId, { text: message.text, blocks: [section(message.text)] })
        : undefined;
  return async (text) => {
    if (!send) return void deps.services.logger.warn(`a click carried no way to answer its author: ${text}`);
    await send({ text }).catch((error: unknown) =>
      deps.services.logger.warn(`could not answer a click by ${userId ?? 'someone'}: ${String(error)}`),
    );
  };
}

/** Approve, Reject and Cancel differ only in the decision; each is acked before any work. */
export function decisionListener(decision: Decision, deps: ListenerDeps) {
  return async ({ ack, body }: ActionArgs): Promise<void> => {
    await ack();
    await decideClick(decision, body, deps);
  };
}

/** The decision of one click, answered privately to whoever clicked. */
async function decideClick(decision: Decision, body: unknown, deps: ListenerDeps): Promise<void> {
  const click = ButtonClick.safeParse(body);
  const tell = whisperToClicker(body, deps);
  const [action] = click.success ? click.data.actions : [];
  if (!click.success || !action)
    return void (await tell('This button did not carry a change request id, so nothing was changed.'));
  const outcome = await deps.services.changeRequests
    .decide(decision, action.value, click.data.user.id, { origin: originOf(body) })
    .catch((error: unknown) => {
      deps.services.logger.error(`${decision} of ${action.value} failed:`, messageOf(error));
      // The click may have been claimed (and the change sent) before the failure: say so honestly.
      return { text: clickFailureText(isStoreUnavailable(error)) };
    });
  if (outcome) await tell(outcome.text);
}
