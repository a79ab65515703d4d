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
