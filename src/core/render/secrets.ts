/**
 * The words and views of the Reveal mechanism: the DM that offers a secret to its one owner, the
 * modal that shows it once (modals are not kept in Slack's history), and a sentence for every
 * other outcome of a click. The secret itself only ever enters `revealedView`.
 */
import type { RevealOutcome } from '../../ports/secret-vault.js';
import { esc, section, slackDate, context, type Block, type View } from './mrkdwn.js';

export const ACTION_REVEAL = 'secret_reveal';
/** The callback id of every Reveal window: the logger withholds any line that names it. */
export const SECRET_VIEW_CALLBACK = 'secret_reveal_view';

/** The DM to the secret's owner: what it is, until when, and the button. */
export function revealOfferBlocks(secretId: string, label: string, expiresAt: number): Block[] {
  return [
    section(
      `:key: ${esc(capitalized(label))} is ready for you. It is shown once, in a window only you see, until ${slackDate(expiresAt)}.`,
    ),
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: ACTION_REVEAL,
          value: secretId,
          style: 'primary',
          text: { type: 'plain_text', text: 'Reveal password' },
        },
      ],
    },
    context('Nobody else can reveal it, and the bot forgets it once you have.'),
  ];
}

export function revealLoadingView(): View {
  return viewOf([section(':hourglass: Fetching it…')]);
}

/** The one place the secret is shown: a rich text block, so it is copied exactly as it is. */
export function revealedView(label: string, value: string): View {
  return viewOf([
    section(`${esc(capitalized(label))}:`),
    { type: 'rich_text', elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text', text: value }] }] },
    context('Shown once: copy it now. Slack does not keep this window, and the bot has forgotten it.'),
  ]);
}

/** Why a click revealed nothing, in a sentence. */
export function revealRefusalText(outcome: Exclude<RevealOutcome, { kind: 'revealed' }>): string {
  switch (outcome.kind) {
    case 'not-yours':
      // Neither whose it is nor what it is: the button reached someone it was not meant for.
      return ':no_entry_sign: This secret was delivered to someone else, and only they can reveal it. Nothing was shown.';
    case 'already-revealed':
      return `:lock: ${esc(capitalized(outcome.label))} was already revealed, ${slackDate(outcome.at)}, and the bot no longer has it. If it was lost, ask for a password reset.`;
    case 'expired':
      return `:hourglass: ${esc(capitalized(outcome.label))} expired unrevealed ${slackDate(outcome.expiredAt)}, and the bot no longer has it. Ask for a password reset to get a new one.`;
    case 'unknown':
      return ':grey_question: The bot has no secret for this button: it expired or was revealed over a day ago, or it is kept in the memory of another bot process, one that stopped or another replica (whoever runs the bot can set SECRETS_KEY so that every replica can reveal it). Ask for a password reset to get a new one.';
  }
}

export function revealMessageView(text: string): View {
  return viewOf([section(text)]);
}

function viewOf(blocks: Block[]): View {
  return {
    type: 'modal',
    callback_id: SECRET_VIEW_CALLBACK,
    title: { type: 'plain_text', text: 'Password' },
    close: { type: 'plain_text', text: 'Done' },
    blocks,
  };
}

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
