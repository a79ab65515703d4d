// @ts-check
/**
 * The acknowledging thread: it owns the HTTP socket Slack posts to, verifies each request's
 * signature (slack-signature.js), acknowledges it at once and hands it to the main
 * thread, where the Bolt app and its listeners run. So the work after an acknowledgement
 * (reading, rendering, Redis, the response_url post) never holds up the next acknowledgement:
 * the operating system schedules this thread apart from the work.
 *
 * Only commands, clicks and events are acknowledged here at once (acknowledgedAtOnce); every
 * other request (a modal submission, an external select's options) waits for its listener's
 * ack on the main thread, because that acknowledgement is Slack's answer. The probes and
 * /metrics are answered by the main thread too, so /livez still means "the bot's event loop
 * answers".
 *
 * Plain JavaScript, type-checked by tsc (// @ts-check): a worker must start without a
 * TypeScript loader, and registering one costs about 0.3 s per bot where tests start hundreds.
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { URLSearchParams } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { EVERY_CHANNEL, readyAnswerKey } from './ready-answer-key.js';
import { parseSlackBody } from './slack-body.js';
import { signatureHeadersProblem, signatureMatches } from './slack-signature.js';

/** @typedef {import('./protocol.js').FromThread} FromThread */
/** @typedef {import('./protocol.js').ToThread} ToThread */
/** @typedef {import('./protocol.js').ThreadSettings} ThreadSettings */
/** @typedef {import('./ready-answers.js').ReadyAnswerOffer} ReadyAnswerOffer */
/** @typedef {import('../../http/ops-routes.js').OpsAnswer} OpsAnswer */
/** @typedef {import('node:http').IncomingMessage} Request */
/** @typedef {import('node:http').ServerResponse} Response */

const settings = /** @type {ThreadSettings} */ (workerData);
const main = parentPort;
if (!main) throw new Error('thread.js runs as a worker thread of the bot');

/**
 * Slack's `ssl_check` (`token=…&ssl_check=1`) may come unsigned, as Bolt allows: an unsigned body
 * this small is read to see whether it is one; anything else unsigned is refused unread.
 */
const SSL_CHECK_MAX_BYTES = 200;

let lastId = 0;
/** Requests handed to the main thread, and (settings.finished) how many of them it has finished. */
let handedOver = 0;
const finished = new Int32Array(settings.finished);
/** Requests handed to the main thread that it has not finished (Int32 arithmetic, as the counter wraps). */
const pending = () => (handedOver - Atomics.load(finished, 0)) | 0;
/** Bytes of request bodies being read now, across connections (bounded by settings.bodyBudget). */
let buffered = 0;
/** Answers the main thread owes, by id: a listener's ack the request waits for, or a route's answer. */
const owed = /** @type {Map<number, (message: ToThread) => void>} */ (new Map());

/**
 * Ready answers (ready-answers.ts) by key: the acknowledgement's body as bytes, so that giving one
 * again is a write, not an encoding. Oldest first (a Map keeps insertion order), bounded in number
 * and bytes.
 * @type {Map<string, { body: Buffer, bytes: number, until: number, generation: number, label: string }>}
 */
const ready = new Map();
let readyBytes = 0;
const readyGeneration = new Int32Array(settings.readyGeneration);
/** The generation whose outdated answers were last dropped. */
let readyPurgedAt = Atomics.load(readyGeneration, 0);

/** @param {FromThread} message */
const tell = (message) => main.postMessage(message);
/** @param {'debug' | 'info' | 'warn' | 'error'} level @param {string} message */
const log = (level, message) => tell({ type: 'log', level, message });
const secondsSince = (/** @type {number} */ start) => (performance.now() - start) / 1000;

/** Refusals are logged at most once per 10 s, with a count of the others: a flood must not flood the log. */
const REFUSAL_LOG_EVERY_MS = 10_000;
let refusalLoggedAt = Number.NEGATIVE_INFINITY;
let refusalsUnlogged = 0;
/** @param {string} sentence */
function logRefusal(sentence) {
  const now = performance.now();
  if (now - refusalLoggedAt < REFUSAL_LOG_EVERY_MS) return void (refusalsUnlogged += 1);
  const others = refusalsUnlogged === 0 ? '' : ` (${refusalsUnlogged} more refused since the last such line)`;
  refusalLoggedAt = now;
  refusalsUnlogged = 0;
  log('warn', `${sentence}${others}`);
}

main.on('message', (/** @type {ToThread} */ message) => {
  if (message.type === 'stop') return stop();
  if (message.type === 'ready-answer') return keepReadyAnswer(message);
  const answer = owed.get(message.id);
  owed.delete(message.id);
  answer?.(message);
});

const server = createServer(
  {
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    // How often the two timeouts above are enforced (Node's default is every 30 s).
    connectionsCheckingInterval: Math.min(1_000, settings.headersTimeoutMs),
  },
  (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? '';
    if (path === settings.eventsPath && method === 'POST') return void receive(req, res);
    const authorization = req.headers.authorization;
    if (settings.routes.some((route) => route.path === path && route.method.includes(method)))
      return void answerRoute(method, path, authorization, res);
    refuse(req, res, 404);
  },
);
server.maxConnections = settings.maxConnections;

/**
 * A request whose body is not read (or not read to the end) is answered and its connection
 * closed, so what the sender still has to send is never taken in.
 * @param {Request} req @param {Response} res @param {number} status @param {Record<string, string>} [headers]
 */
function refuse(req, res, status, headers = {}) {
  if (res.headersSent) return;
  res.writeHead(status, { ...headers, connection: 'close' });
  res.end();
  if (!req.complete) res.once('finish', () => req.destroy());
}

/** @param {Response} res @param {unknown} body Bolt's buildContentResponse: empty, text, or JSON. */
function content(res, body) {
  if (!body) res.writeHead(200).end();
  else if (typeof body === 'string') res.writeHead(200).end(body);
  else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** @param {Request} req @param {string} name */
function header(req, name) {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads a body of at most `limit` bytes, taking its bytes from the budget shared by all
 * connections; `undefined` when the request was answered instead (413, 503) or went away.
 * @param {Request} req @param {Response} res @param {number} limit
 * @returns {Promise<Buffer | undefined>}
 */
function readBody(req, res, limit) {
  const declared = Number(header(req, 'content-length') ?? Number.NaN);
  if (declared > limit) {
    logRefusal(`Refused a request body of ${declared} bytes: the limit is ${limit} bytes.`);
    refuse(req, res, 413);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    const release = () => {
      buffered -= size;
      size = 0;
      chunks.length = 0;
    };
    /** @param {number} status @param {string} why */
    const stopReading = (status, why) => {
      req.off('data', onData);
      release();
      logRefusal(why);
      refuse(req, res, status);
      resolve(undefined);
    };
    /** @param {Buffer} chunk */
    const onData = (chunk) => {
      if (size + chunk.length > limit)
        return stopReading(413, `Refused a request body over the limit of ${limit} bytes.`);
      if (buffered + chunk.length > settings.bodyBudget)
        return stopReading(503, 'Refused a request: too many request bodies are being received at once.');
      size += chunk.length;
      buffered += chunk.length;
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      const body = Buffer.concat(chunks, size);
      release();
      resolve(body);
    });
    req.once('close', () => {
      if (req.complete) return;
      release();
      resolve(undefined);
    });
  });
}

/**
 * Bolt's HTTPReceiver, step by step (same statuses), except that the signature headers are
 * checked before the body is read and the acknowledgement goes out here instead of after the
 * app's middleware.
 * @param {Request} req @param {Response} res
 */
async function receive(req, res) {
  const signed = signatureHeadersProblem(req.headers, Math.floor(Date.now() / 1000));
  if (!signed.ok) return receiveUnsigned(req, res, signed.problem);
  const raw = await readBody(req, res, settings.bodyLimit);
  if (raw === undefined) return;
  if (!signatureMatches(settings.signingSecret, signed.headers, raw)) {
    logRefusal('Refused a request: its Slack signature does not match its body (check SLACK_SIGNING_SECRET).');
    return refuse(req, res, 401);
  }
  const received = performance.now();
  const parsed = parseSlackBody(raw.toString('utf8'), header(req, 'content-type'));
  if (!parsed.ok) {
    log('warn', `Refused a signed request: ${parsed.problem}.`);
    return refuse(req, res, 400);
  }
  const body = parsed.body;
  if (body.ssl_check === '1') return content(res, undefined);
  if (body.type === 'url_verification') return content(res, { challenge: body.challenge });
  if (typeof body.command === 'string' && giveReadyAnswer(body, res, received)) return;
  const retry = header(req, 'x-slack-retry-num');
  const retryNum = retry === undefined ? undefined : Number.parseInt(retry, 10);
  const retryReason = header(req, 'x-slack-retry-reason');
  const atOnce = acknowledgedAtOnce(body);
  if (atOnce && pending() >= settings.maxPending) return refuseBusy(body, res);
  handedOver = (handedOver + 1) | 0;
  if (atOnce) {
    content(res, undefined);
    return tell({ type: 'event', id: 0, body, retryNum, retryReason, ackSeconds: secondsSince(received) });
  }
  const id = (lastId += 1);
  const unanswered = setTimeout(() => {
    owed.delete(id);
    log(
      'error',
      'An incoming event was not acknowledged within 3 seconds. Ensure that the ack() argument is called in a listener.',
    );
    if (!res.headersSent) res.writeHead(404).end();
  }, settings.unhandledTimeoutMs);
  owed.set(id, (message) => {
    clearTimeout(unanswered);
    if (message.type !== 'ack' || res.headersSent) return;
    if (message.status) res.writeHead(message.status).end();
    else content(res, message.response);
    tell({ type: 'acked', seconds: secondsSince(received) });
  });
  tell({ type: 'event', id, body, retryNum, retryReason, ackSeconds: undefined });
}

/**
 * Whether the thread acknowledges a request at once, with an empty body, before the main thread
 * has seen it: a click's (block_actions) or an event's acknowledgement carries nothing Slack
 * shows, and a slash command's content goes to its response_url instead (receiver.ts). Every
 * other kind waits for its listener's ack, whose content is Slack's answer: a submission's
 * `response_action`, an external select's options (block_suggestion), and any kind Slack adds.
 * @param {Record<string, unknown>} body
 */
function acknowledgedAtOnce(body) {
  return typeof body.command === 'string' || body.type === 'block_actions' || body.type === 'event_callback';
}

/** @param {ReadyAnswerOffer} offer */
function keepReadyAnswer(offer) {
  const generation = Atomics.load(readyGeneration, 0);
  if (generation !== readyPurgedAt) {
    for (const [key, kept] of ready) if (kept.generation !== generation) forgetReadyAnswer(key, kept);
    readyPurgedAt = generation;
  }
  if (offer.generation !== generation) return;
  const body = Buffer.from(offer.body, 'utf8');
  // The key counts too: it holds the command's text, which is the person's to make long.
  const bytes = body.length + Buffer.byteLength(offer.key, 'utf8');
  if (bytes > settings.readyAnswersMaxBytes) return;
  const previous = ready.get(offer.key);
  if (previous) forgetReadyAnswer(offer.key, previous);
  for (const [key, kept] of ready) {
    if (ready.size < settings.readyAnswersMax && readyBytes + bytes <= settings.readyAnswersMaxBytes) break;
    forgetReadyAnswer(key, kept);
  }
  ready.set(offer.key, { body, bytes, until: offer.until, generation: offer.generation, label: offer.label });
  readyBytes += bytes;
}

/** @param {string} key @param {{ bytes: number }} kept */
function forgetReadyAnswer(key, kept) {
  ready.delete(key);
  readyBytes -= kept.bytes;
}

/**
 * Answers a slash command in its acknowledgement when the main thread left a ready answer for it
 * that is still good (its time not past, nothing it came from changed); false otherwise.
 * @param {Record<string, unknown>} body @param {Response} res @param {number} received
 */
function giveReadyAnswer(body, res, received) {
  if (ready.size === 0) return false;
  const command = {
    teamId: String(body.team_id ?? ''),
    channelId: String(body.channel_id ?? ''),
    command: String(body.command),
    text: String(body.text ?? ''),
  };
  const kept =
    stillGood(readyAnswerKey(command)) ?? stillGood(readyAnswerKey({ ...command, channelId: EVERY_CHANNEL }));
  if (!kept) return false;
  res.writeHead(200, { 'content-type': 'application/json' }).end(kept.body);
  countReadyAnswer(kept.label, secondsSince(received));
  return true;
}

/** The ready answer kept under `key`, if it may still be given (an outdated one is dropped). */
function stillGood(/** @type {string} */ key) {
  const kept = ready.get(key);
  if (!kept) return undefined;
  if (kept.generation === Atomics.load(readyGeneration, 0) && Date.now() < kept.until) return kept;
  forgetReadyAnswer(key, kept);
  return undefined;
}

/** Ready answers given since the last report, told to the main thread at most once a second. */
const REPORT_EVERY_MS = 1_000;
/** Latencies kept per report at most (a flood's count stays exact; its latencies are a sample). */
const REPORT_MAX_LATENCIES = 10_000;
/** @type {Record<string, number>} */
let answeredCounts = {};
/** @type {number[]} */
let answeredAckSeconds = [];
/** @type {NodeJS.Timeout | undefined} */
let reportTimer;

/** @param {string} label @param {number} seconds */
function countReadyAnswer(label, seconds) {
  answeredCounts[label] = (answeredCounts[label] ?? 0) + 1;
  if (answeredAckSeconds.length < REPORT_MAX_LATENCIES) answeredAckSeconds.push(seconds);
  reportTimer ??= setTimeout(reportReadyAnswers, REPORT_EVERY_MS);
}

function reportReadyAnswers() {
  clearTimeout(reportTimer);
  reportTimer = undefined;
  if (answeredAckSeconds.length === 0 && Object.keys(answeredCounts).length === 0) return;
  tell({ type: 'answered-ready', counts: answeredCounts, ackSeconds: answeredAckSeconds });
  answeredCounts = {};
  answeredAckSeconds = [];
}

/**
 * A request without fresh signature headers: 401 before its body is read, except Slack's small
 * unsigned `ssl_check`, which gets its 200.
 * @param {Request} req @param {Response} res @param {string} problem
 */
async function receiveUnsigned(req, res, problem) {
  const declared = Number(header(req, 'content-length') ?? Number.NaN);
  const form = (header(req, 'content-type') ?? '').startsWith('application/x-www-form-urlencoded');
  if (form && declared <= SSL_CHECK_MAX_BYTES) {
    const raw = await readBody(req, res, SSL_CHECK_MAX_BYTES);
    if (raw === undefined) return;
    if (new URLSearchParams(raw.toString('utf8')).get('ssl_check') === '1') return content(res, undefined);
  }
  logRefusal(`Refused a request: ${problem}.`);
  refuse(req, res, 401);
}

/**
 * Too much handed over already: a command gets the sentence in its acknowledgement, a click
 * privately through its response_url. (A request that waits for its listener is always handed
 * over: its answer is the listener's.)
 * @param {Record<string, unknown>} body @param {import('node:http').ServerResponse} res
 */
function refuseBusy(body, res) {
  const busy = { response_type: 'ephemeral', text: settings.busyText };
  if (typeof body.command === 'string') return content(res, busy);
  content(res, undefined);
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

/**
 * @param {string} method @param {string} path @param {string | undefined} authorization
 * @param {Response} res
 */
function answerRoute(method, path, authorization, res) {
  const id = (lastId += 1);
  owed.set(id, (message) => {
    if (message.type !== 'route-answer') return;
    res.writeHead(message.answer.status, { 'content-type': message.answer.contentType, ...message.answer.headers });
    res.end(message.answer.body);
  });
  tell({ type: 'route', id, method, path, authorization });
}

function stop() {
  reportReadyAnswers();
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
