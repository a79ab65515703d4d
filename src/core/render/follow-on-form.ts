/**
 * The small form an Extend or Undo click opens when a policy rule asks a reason or a ticket of the
 * change the bot would file, and the grant did not carry them: its submission files the extension
 * or undo with what was typed, judged by the same rules as any request.
 */
import { z } from 'zod';
import type { RuleAsks } from '../approval/types.js';
import { unjustified, type Justification } from '../policy/justification.js';
import { justificationBlocks, justificationErrors, justificationFromSubmission, type ViewState } from './modal.js';
import { bold, code, type View } from './mrkdwn.js';
import { smallFormView } from './reject-form.js';
import { ticketExample } from '../policy/ticket-example.js';

export const FOLLOW_ON_CALLBACK = 'follow_on_justification';

/** What the form remembers: which click on which change, what the rules ask, where to answer. */
export const FollowOnMetadataSchema = z.object({
  action: z.enum(['extend', 'undo']),
  originalId: z.string().min(1).max(64),
  channelId: z.string().min(1).max(64).optional(),
  asks: z
    .array(
      z.object({
        rule: z.string().max(200),
        require: z.object({ reason: z.literal(true).optional(), ticket: z.string().max(200).optional() }),
      }),
    )
    .max(10),
});
export type FollowOnMetadata = z.infer<typeof FollowOnMetadataSchema>;

const TITLES = { extend: 'Extend change', undo: 'Undo change' } as const;
const NAMES = { extend: 'extension', undo: 'undo' } as const;

export function followOnFormView(metadata: FollowOnMetadata): View {
  const rules = metadata.asks.map((ask) => `The policy rule ${bold(ask.rule)} asks for ${asked(ask)}.`).join(' ');
  return smallFormView({
    callbackId: FOLLOW_ON_CALLBACK,
    metadata,
    title: TITLES[metadata.action],
    submit: metadata.action === 'extend' ? 'Extend' : 'Undo',
    intro: `The ${NAMES[metadata.action]} of ${code(metadata.originalId)} is a change of its own. ${rules}`,
    inputs: justificationBlocks(),
  });
}

/** "a reason and a ticket like `OPS-123`": an example the rule's pattern accepts, never the pattern. */
function asked(ask: RuleAsks): string {
  const pattern = ask.require.ticket;
  const example = pattern === undefined ? undefined : ticketExample([pattern]);
  const ticket = example ? `a ticket like ${code(example)}` : 'a ticket in the form the rule sets (policy shows it)';
  return [...(ask.require.reason ? ['a reason'] : []), ...(pattern === undefined ? [] : [ticket])].join(' and ');
}

/**
 * The Reason and Ticket as typed, or inline errors: a field that cannot be taken, or what a rule
 * asks that is missing (judged as the filing will judge it, so the form says it while open).
 */
export function followOnJustificationOf(
  values: ViewState,
  asks: readonly RuleAsks[],
): { ok: true; given: Justification } | { ok: false; errors: Record<string, string> } {
  const typed = justificationFromSubmission(values);
  if (!typed.ok) return typed;
  const rules = asks.map((ask) => ({ ...ask, approvals: 0, approvers: [], reasons: [] }));
  const lacking = unjustified(rules, typed.justification);
  if (!lacking) return { ok: true, given: typed.justification };
  return { ok: false, errors: justificationErrors(lacking) };
}

export const FOLLOW_ON_FORM_GONE_TEXT = 'This form is out of date. Close it and click the button again.';
