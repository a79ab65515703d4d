// @ts-check
/**
 * The acknowledging thread: it owns the HTTP socket Slack posts to, verifies each request's
 * signature with Bolt's own HTTP functions, acknowledges it at once and hands it to the main
 * thread, where the Bolt app and its listeners run. So the work after an acknowledgement
 * (reading, rendering, Redis, the response_url post) never holds up the next acknowledgement:
 * the operating system schedules this thread apart from the work.
 *
 * Only a modal submission waits for the main thread, because its acknowledgement carries the
 * form's inline errors. The probes and /metrics are answered by the main thread too, so /livez
 * still means "the bot's event loop answers".
 *
 * Plain JavaScript, type-checked by tsc (// @ts-check): a worker must start without a
 * TypeScript loader, and registering one costs about 0.3 s per bot where tests start hundreds.
 */
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import * as slackHttp from '@slack/bolt/dist/receivers/HTTPModuleFunctions.js';

/** @typedef {import('./protocol.js').FromThread} FromThread */
/** @typedef {import('./protocol.js').ToThread} ToThread */
/** @typedef {import('./protocol.js').ThreadSettings} ThreadSettings */
/** @typedef {import('../../http/ops-routes.js').OpsAnswer} OpsAnswer */

const settings = /** @type {ThreadSettings} */ (workerData);
const main = parentPort;
if (!main) throw new Error('thread.js runs as a worker thread of the bot');

let lastId = 0;
/** Requests handed to the main thread that it has not finished. */
let pending = 0;
/** Answers the main thread owes, by id: a submission's ack or a route's answer. */
const owed = /** @type {Map<number, (message: ToThread) => void>} */ (new Map());

/** @param {FromThread} message */
const tell = (message) => main.postMessage(message);
/** @param {'debug' | 'info' | 'warn' | 'error'} level @param {string} message */
const log = (level, message) => tell({ type: 'log', level, message });
const secondsSince = (/** @type {number} */ start) => (performance.now() - start) / 1000;

main.on('message', (/** @type {ToThread} */ message) => {
  if (message.type === 'stop') return stop();
  if (message.type === 'done') return void (pending -= message.count);
  const answer = owed.get(message.id);
  owed.delete(message.id);
  answer?.(message);
});

const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const method = req.method ?? '';
  if (path === settings.eventsPath && method === 'POST') return void receive(req, res);
  if (settings.routes.some((route) => route.path === path && route.method.includes(method)))
    return void answerRoute(method, path, res);
  slackHttp.buildNoBodyResponse(res, 404);
});

/**
 * Bolt's HTTPReceiver, step by step (same functions, same statuses), except that the
 * acknowledgement goes out here instead of after the app's middleware.
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 */
async function receive(req, res) {
  let request;
  try {
    request = await slackHttp.parseAndVerifyHTTPRequest(
      { enabled: true, signingSecret: settings.signingSecret, bodyLimit: slackHttp.defaultBodyLimit },
      req,
    );
  } catch (error) {
    if (slackHttp.isRawBodyError(error) && (error.type === 'entity.too.large' || error.statusCode === 413)) {
      log('warn', `Request body exceeded the maximum allowed size (limit: ${slackHttp.defaultBodyLimit} bytes)`);
      return slackHttp.buildNoBodyResponse(res, 413);
    }
    log(
      'warn',
      `Failed to parse and verify the request data: ${error instanceof Error ? error.message : String(error)}`,
    );
    return slackHttp.buildNoBodyResponse(res, 401);
  }
  const received = performance.now();
  /** @type {Record<string, unknown>} */
  let body;
  try {
    body = slackHttp.parseHTTPRequestBody(request);
  } catch (error) {
    log('warn', `Malformed request body: ${error instanceof Error ? error.message : String(error)}`);
    return slackHttp.buildNoBodyResponse(res, 400);
  }
  if (body.ssl_check === '1') return slackHttp.buildSSLCheckResponse(res);
  if (body.type === 'url_verification') return slackHttp.buildUrlVerificationResponse(res, body);
  const retryNum = slackHttp.extractRetryNumFromHTTPRequest(req);
  const retryReason = slackHttp.extractRetryReasonFromHTTPRequest(req);
  if (body.type !== 'view_submission' && pending >= settings.maxPending) return refuseBusy(body, res);
  pending += 1;
  if (body.type !== 'view_submission') {
    slackHttp.buildContentResponse(res, undefined);
    return tell({ type: 'event', id: 0, body, retryNum, retryReason, ackSeconds: secondsSince(received) });
  }
  const id = (lastId += 1);
  const unanswered = setTimeout(() => {
    owed.delete(id);
    log(
      'error',
      'An incoming event was not acknowledged within 3 seconds. Ensure that the ack() argument is called in a listener.',
    );
    if (!res.headersSent) slackHttp.buildNoBodyResponse(res, 404);
  }, settings.unhandledTimeoutMs);
  owed.set(id, (message) => {
    clearTimeout(unanswered);
    if (message.type !== 'ack' || res.headersSent) return;
    if (message.status) slackHttp.buildNoBodyResponse(res, message.status);
    else slackHttp.buildContentResponse(res, message.response);
    tell({ type: 'acked', seconds: secondsSince(received) });
  });
  tell({ type: 'event', id, body, retryNum, retryReason, ackSeconds: undefined });
}

/**
 * Too much handed over already: a command gets the sentence in its acknowledgement, a click
 * privately through its response_url. (A submission is always handed over: its answer is the form's.)
 * @param {Record<string, unknown>} body @param {import('node:http').ServerResponse} res
 */
function refuseBusy(body, res) {
  const busy = { response_type: 'ephemeral', text: settings.busyText };
  if (typeof body.command === 'string') return slackHttp.buildContentResponse(res, busy);
  slackHttp.buildContentResponse(res, undefined);
  if (typeof body.response_url !== 'string') return;
  const post = fetch(body.response_url, {
    method: 'POST',
    body: JSON.stringify({ ...busy, replace_original: false }),
    headers: { 'content-type': 'application/json' },
  });
  post
    .then((answer) => answer.body?.cancel())
    .catch((error) =>
      log('warn', `answering a click while busy: ${error instanceof Error ? error.message : String(error)}`),
    );
}

/** @param {string} method @param {string} path @param {import('node:http').ServerResponse} res */
function answerRoute(method, path, res) {
  const id = (lastId += 1);
  owed.set(id, (message) => {
    if (message.type !== 'route-answer') return;
    res.writeHead(message.answer.status, { 'content-type': message.answer.contentType });
    res.end(message.answer.body);
  });
  tell({ type: 'route', id, method, path });
}

function stop() {
  server.closeAllConnections();
  server.close(() => {
    tell({ type: 'stopped' });
    main?.close();
  });
}

server.on('error', (/** @type {NodeJS.ErrnoException} */ error) =>
  tell({ type: 'failed', code: error.code, message: error.message }),
);
server.listen(
  settings.host === undefined ? { port: settings.port } : { port: settings.port, host: settings.host },
  () => {
    const address = server.address();
    tell({ type: 'listening', port: typeof address === 'object' && address ? address.port : settings.port });
  },
);
