/**
 * The playground's /ui/* routes drive the bot as any of its people: only its own page may call
 * them. A request must name the playground itself in `Host` (a DNS-rebinding page names its own
 * domain there), and a browser's `Origin`, when sent, must be the playground's own; a POST must
 * carry JSON, which no cross-origin page can send without a preflight the playground never answers.
 */
import type { IncomingMessage } from 'node:http';

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/** Why `req` is not from the playground's own page on `port`, as a sentence; undefined when it is. */
export function crossOriginProblem(req: IncomingMessage, port: number): string | undefined {
  const own = LOOPBACK.map((host) => `${host}:${port}`);
  const host = (req.headers.host ?? '').toLowerCase();
  if (!own.includes(host))
    return `The playground answers only requests for ${own[0]} (this one was for "${host || 'no host'}").`;
  const origin = req.headers.origin;
  if (origin !== undefined && !own.some((o) => origin.toLowerCase() === `http://${o}`))
    return `The playground answers only its own page, not pages from ${origin}.`;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (req.method === 'POST' && type !== 'application/json')
    return 'The playground takes POST requests as application/json only.';
  return undefined;
}
