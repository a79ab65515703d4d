export const DRAINING_TEXT = ':arrows_counterclockwise: The bot is restarting and takes no new work for a moment. Try again in a few seconds.';
