// @ts-check
/**
 * The key of a ready answer (ready-answers.ts), spelled one way by both threads: the main thread
 * when it offers an answer, the acknowledging thread when a command arrives. JSON of the four
 * fields, so that no command text can make two commands share a key.
 */

/**
 * @param {{ teamId: string, channelId: string, command: string, text: string }} key
 * @returns {string}
 */
export function readyAnswerKey(key) {
  return JSON.stringify([key.teamId, key.channelId, key.command, key.text]);
}

/**
 * The channel of an answer that holds in every channel of the workspace (a `list` when no
 * ORGANIZATIONS_FILE gives channels organizations or rules of their own). Slack's channel ids
 * are never `*`.
 */
export const EVERY_CHANNEL = '*';
