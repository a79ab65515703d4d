/**
 * A stand-in for Slack's side of the conversation: the Web API methods the bot calls, the
 * response_url endpoints, and the state a person would see (channel messages, threads, ephemeral
 * replies, open modals). It records every call, so tests can await the one they expect, and
 * views.open enforces the 3-second trigger_id lifetime as Slack does. The playground serves it
 * to a web page; tests and benchmarks use it as their fake Slack.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenProblem } from '../http/listen-problem.js';

export interface SlackCall {
  /** Web API method (chat.postMessage...) or "response_url". */
  method: string;
  /** Form fields with JSON values decoded (blocks, view...), or the JSON body of response_url posts. */
  args: Record<string, unknown>;
  at: number;
}

export interface ChatMessage {
  ts: string;
  channel: string;
  /** The person who wrote it; undefined for the bot. */
  userId?: string;
  text: string;
  blocks: unknown[];
  threadTs?: string;
  /** Shown only to this person ("Only visible to you"). */
  visibleTo?: string;
  /** A direct message from the app to this person (chat.postMessage with their user id as channel). */
  directTo?: string;
  /** Files shared with the message (files.completeUploadExternal), served at their url. */
  files?: SharedFileRef[];
}

export interface SharedFileRef {
  id: string;
  title: string;
  altText: string;
  /** Where the stand-in serves its bytes (path on its own port). */
  url: string;
}

/** A file as uploaded through files.getUploadURLExternal and the upload URL. */
export interface UploadedFile {
  id: string;
  filename: string;
  /** The length announced in files.getUploadURLExternal. */
  length: number;
  altText: string;
  /** Undefined until the bytes arrived at the upload URL. */
  bytes?: Buffer;
  /** Set by files.completeUploadExternal. */
  completed: boolean;
}

export interface OpenView {
  id: string;
  userId: string;
  view: Record<string, unknown>;
  /** Inline errors from the last submission (response_action: errors), by block id. */
  errors: Record<string, string>;
}

/** Where a response_url answers: the channel and person of the interaction, and its message. */
interface Interaction {
  channel: string;
  userId: string;
  messageTs?: string;
}

const TRIGGER_LIFETIME_MS = 3_000;

/** The one person who is not in every channel by default: only in the tests' main channel. */
const OUTSIDER = 'U0OUTSIDER';
const MAIN_CHANNEL = 'C0CHANNEL';
const EVERYONE = [
  'U0REQUESTER',
  'U0APPROVER',
  'U0SECOND',
  OUTSIDER,
  'U0ALICE',
  'U0BOB',
  'U0CAROL',
  'U0DAVE',
  'U0BOSS',
  'U0PERSON',
  'U0APP1',
];

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => boolean | Promise<boolean>;

export class SlackStandIn extends EventEmitter<{ call: [SlackCall]; change: []; rateLimited: [SlackCall] }> {
  readonly calls: SlackCall[] = [];
  readonly messages: ChatMessage[] = [];
  readonly views = new Map<string, OpenView>();
  /** Each person's Home tab as last published (views.publish), by user id. */
  readonly homes = new Map<string, Record<string, unknown>>();
  /** Files uploaded (files.uploadV2's three steps), by file id. */
  readonly files = new Map<string, UploadedFile>();
  /** Channels (or, for DMs, user ids) where chat.postMessage fails with this error code (e.g. not_in_channel, user_disabled). */
  readonly failingChannels = new Map<string, string>();
  readonly userGroups = new Map<string, string[]>();
  /** What users.info says of each person's time zone (`user.tz`); absent people have none. */
  readonly userTimeZones = new Map<string, string>();
  /**
   * Calls to refuse with 429 and a Retry-After, as Slack does past a rate limit: each entry refuses
   * the next matching call once (by method, and channel when given). Refused calls go to
   * `rateLimitedCalls`, not `calls`.
   */
  readonly rateLimits: Array<{ method: string; channel?: string; retryAfterSeconds: number }> = [];
  readonly rateLimitedCalls: SlackCall[] = [];
  /** Channels whose chat.getPermalink fails with this error code (e.g. channel_not_found). */
  readonly failingPermalinks = new Map<string, string>();
  /** User groups whose usergroups.users.list fails with this error code (e.g. missing_scope). */
  readonly failingGroups = new Map<string, string>();
  /**
   * Who is in each channel (conversations.members), as a test puts them. A channel not set here
   * has `everyone` in it, but U0OUTSIDER is only in C0CHANNEL.
   */
  readonly channelMembers = new Map<string, string[]>();
  /** The people of a channel a test did not fill: everyone the tests and the playground act as. */
  everyone: string[] = [...EVERYONE];
  /** Channels whose conversations.members fails with this error code (missing_scope, not_in_channel). */
  readonly failingMembers = new Map<string, string>();
  /** What apps.connections.open answers: a Socket Mode server's ws:// URL (tests), fresh for each call. */
  socketModeUrl: (() => string) | undefined;
  url = '';
  private readonly triggers = new Map<string, { issuedAt: number; userId: string }>();
  private readonly interactions = new Map<string, Interaction>();
  private readonly extraRoutes: Handler[] = [];
  private server: Server | undefined;
  private counter = 0;

  static async start(options: { port?: number; host?: string } = {}): Promise<SlackStandIn> {
    const slack = new SlackStandIn();
    await slack.listen(options.port ?? 0, options.host ?? '127.0.0.1');
    return slack;
  }

  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  responseUrl(id: string): string {
    return `${this.url}/respond/${id}`;
  }

  /** Serves other routes (the playground page) on the same port; first handler to answer wins. */
  route(handler: Handler): void {
    this.extraRoutes.push(handler);
  }

  /** Remembers when a command carrying this trigger was sent; views.open checks its age. */
  issueTrigger(triggerId: string, userId = ''): void {
    this.triggers.set(triggerId, { issuedAt: Date.now(), userId });
  }

  /** A response_url for one interaction: answers go to this person in this channel. */
  openInteraction(id: string, interaction: Interaction): string {
    this.interactions.set(id, interaction);
    return this.responseUrl(id);
  }

  /**
   * A slash command's acknowledgement that carries a message is its answer, shown as a
   * response_url post would be (Slack's "immediate response"); an empty one answers nothing.
   * Recorded as a `response_url` call with `inAck: true`.
   */
  answerInAck(responseUrlId: string, ackBody: string): void {
    if (ackBody.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(ackBody);
    } catch {
      parsed = { text: ackBody };
    }
    const args =
      typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : { text: ackBody };
    this.record('response_url', { ...args, responseUrlId, inAck: true });
    this.respond(responseUrlId, args);
  }

  /** Shows what a person typed, as Slack shows the slash command in the channel to its author. */
  echoCommand(channel: string, userId: string, text: string): void {
    this.addMessage({ channel, userId, text, blocks: [], visibleTo: userId });
  }

  callsOf(method: string, match: (args: Record<string, unknown>) => boolean = () => true): SlackCall[] {
    return this.calls.filter((c) => c.method === method && match(c.args));
  }

  /** Resolves with the first call (already made, from call number `after` on, or future) that matches. */
  waitFor(
    method: string,
    match: (args: Record<string, unknown>) => boolean = () => true,
    { after = 0, timeoutMs = 10_000 }: { after?: number; timeoutMs?: number } = {},
  ): Promise<SlackCall> {
    const seen = this.calls.slice(after).find((c) => c.method === method && match(c.args));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('call', onCall);
        reject(
          new Error(`timed out waiting for ${method}; calls so far: ${this.calls.map((c) => c.method).join(', ')}`),
        );
      }, timeoutMs);
      const onCall = (call: SlackCall) => {
        if (call.method !== method || !match(call.args)) return;
        clearTimeout(timer);
        this.off('call', onCall);
        resolve(call);
      };
      this.on('call', onCall);
    });
  }

  /**
   * What the bot told one person directly: chat.postMessage with their user id as the channel,
   * which Slack posts in the app's DM with them (kept here under the user id).
   */
  directMessages(userId: string): ChatMessage[] {
    return this.messages.filter((m) => m.directTo === userId);
  }

  setViewErrors(viewId: string, errors: Record<string, string>): void {
    const view = this.views.get(viewId);
    if (view) view.errors = errors;
    this.emit('change');
  }

  closeView(viewId: string): void {
    this.views.delete(viewId);
    this.emit('change');
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(port: number, host: string): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(listenProblem(error, host, port))));
      server.listen(port, host, () => resolve());
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const body = raw.toString('utf8');
    const path = req.url ?? '';
    if (req.method === 'POST' && path.startsWith('/upload/')) return this.receiveUpload(req, res, path, raw);
    if (req.method === 'GET' && path.startsWith('/files/')) return this.serveFile(res, path);
    if (req.method === 'POST' && path.startsWith('/respond/')) {
      const args = JSON.parse(body || '{}') as Record<string, unknown>;
      const id = path.slice('/respond/'.length);
      this.record('response_url', { ...args, responseUrlId: id });
      this.respond(id, args);
      return json(res, { ok: true });
    }
    if (req.method === 'POST' && path.startsWith('/api/')) {
      const method = path.slice('/api/'.length).split('?')[0] ?? '';
      const args = decodeArgs(req.headers['content-type'] ?? '', body);
      const limit = this.rateLimits.findIndex(
        (l) => l.method === method && (l.channel === undefined || l.channel === str(args.channel)),
      );
      if (limit >= 0) {
        const retryAfterSeconds = this.rateLimits.splice(limit, 1)[0]?.retryAfterSeconds ?? 1;
        const refused = { method, args, at: Date.now() };
        this.rateLimitedCalls.push(refused);
        this.emit('rateLimited', refused);
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) });
        res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
        return;
      }
      this.record(method, args);
      return json(res, this.answer(method, args));
    }
    for (const handler of this.extraRoutes) if (await handler(req, res, body)) return;
    res.writeHead(404).end();
  }

  private record(method: string, args: Record<string, unknown>): void {
    const call = { method, args, at: Date.now() };
    this.calls.push(call);
    this.emit('call', call);
  }

  private answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    // As Slack does: a message whose text reaches 40,000 characters is refused.
    if (method.startsWith('chat.') && [...str(args.text)].length >= 40_000) return { ok: false, error: 'msg_too_long' };
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          user_id: 'UBOT',
          bot_id: 'BBOT',
          team_id: 'T0TEAM',
          user: 'clickhouse',
          team: 'Playground',
          url: 'https://playground.slack.invalid/',
        };
      case 'chat.postMessage':
        return this.postMessage(args);
      case 'chat.update':
        return this.updateMessage(args);
      case 'chat.getPermalink':
        return this.permalink(args);
      case 'chat.postEphemeral': {
        const message = this.addMessage({
          channel: str(args.channel),
          text: str(args.text),
          blocks: blocksOf(args),
          visibleTo: str(args.user),
        });
        return { ok: true, message_ts: message.ts };
      }
      case 'views.open':
        return this.openView(args);
      case 'views.update': {
        const open = this.views.get(str(args.view_id));
        if (open) open.view = args.view as Record<string, unknown>;
        this.emit('change');
        return { ok: true, view: { id: args.view_id } };
      }
      case 'views.publish': {
        const view = args.view;
        const userId = str(args.user_id);
        if (!userId || typeof view !== 'object' || view === null || (view as { type?: unknown }).type !== 'home')
          return { ok: false, error: 'invalid_arguments' };
        // As Slack does: a Home tab holds at most 100 blocks.
        const blocks = (view as { blocks?: unknown }).blocks;
        if (!Array.isArray(blocks) || blocks.length > 100) return { ok: false, error: 'invalid_blocks' };
        this.homes.set(userId, view as Record<string, unknown>);
        this.emit('change');
        return { ok: true, view: { id: `VHOME-${userId}` } };
      }
      case 'files.getUploadURLExternal':
        return this.uploadUrl(args);
      case 'files.completeUploadExternal':
        return this.completeUpload(args);
      case 'apps.connections.open':
        return this.socketModeUrl
          ? { ok: true, url: this.socketModeUrl() }
          : { ok: false, error: 'not_allowed_token_type' };
      case 'users.info': {
        const tz = this.userTimeZones.get(str(args.user));
        return { ok: true, user: { id: str(args.user), ...(tz ? { tz } : {}) } };
      }
      case 'usergroups.users.list': {
        const failure = this.failingGroups.get(str(args.usergroup));
        return failure
          ? { ok: false, error: failure }
          : { ok: true, users: this.userGroups.get(str(args.usergroup)) ?? [] };
      }
      case 'conversations.members':
        return this.members(args);
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** One page of a channel's members, as Slack pages them: `limit` at most, then a cursor. */
  private members(args: Record<string, unknown>): Record<string, unknown> {
    const channel = str(args.channel);
    const failure = this.failingMembers.get(channel);
    if (failure) return { ok: false, error: failure };
    const all =
      this.channelMembers.get(channel) ??
      this.everyone.filter((userId) => userId !== OUTSIDER || channel === MAIN_CHANNEL);
    const from = Number(str(args.cursor) || '0');
    const limit = Number(args.limit) || 100;
    const next = from + limit < all.length ? String(from + limit) : '';
    return { ok: true, members: all.slice(from, from + limit), response_metadata: { next_cursor: next } };
  }

  /** Step 1 of files.uploadV2: a URL to send the bytes to, and the file's id. */
  private uploadUrl(args: Record<string, unknown>): Record<string, unknown> {
    const filename = str(args.filename);
    const length = Number(args.length);
    if (!filename || !Number.isInteger(length) || length <= 0) return { ok: false, error: 'invalid_arguments' };
    this.counter += 1;
    const id = `F${String(this.counter).padStart(8, '0')}`;
    this.files.set(id, { id, filename, length, altText: str(args.alt_text), completed: false });
    return { ok: true, upload_url: `${this.url}/upload/${id}`, file_id: id };
  }

  /** Step 2: the bytes, as WebClient sends them (a multipart form with one file field). */
  private async receiveUpload(req: IncomingMessage, res: ServerResponse, path: string, raw: Buffer): Promise<void> {
    const file = this.files.get(path.slice('/upload/'.length));
    if (!file) return void res.writeHead(404).end();
    const type = req.headers['content-type'] ?? 'application/octet-stream';
    let bytes = raw;
    if (type.includes('multipart/form-data')) {
      const form = await new Request('http://stand-in.invalid/', {
        method: 'POST',
        headers: { 'content-type': type },
        body: new Uint8Array(raw),
      }).formData();
      const part = [...form.values()].find((value): value is File => typeof value !== 'string');
      bytes = part ? Buffer.from(await part.arrayBuffer()) : Buffer.alloc(0);
    }
    if (bytes.length !== file.length) return void res.writeHead(400).end('length does not match');
    file.bytes = bytes;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${bytes.length}`);
  }

  private serveFile(res: ServerResponse, path: string): void {
    const file = this.files.get(path.slice('/files/'.length));
    if (!file?.bytes || !file.completed) return void res.writeHead(404).end();
    const type = file.filename.endsWith('.png') ? 'image/png' : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type, 'content-length': file.bytes.length }).end(file.bytes);
  }

  /** Step 3: the uploaded files are shared in the channel (or thread) as one message. */
  private completeUpload(args: Record<string, unknown>): Record<string, unknown> {
    const listed = Array.isArray(args.files) ? (args.files as Array<{ id?: unknown; title?: unknown }>) : [];
    const files = listed.map((entry) => ({ entry, file: this.files.get(str(entry.id)) }));
    if (files.length === 0 || files.some(({ file }) => !file?.bytes)) return { ok: false, error: 'file_not_found' };
    const channel = str(args.channel_id);
    const failure = this.failingChannels.get(channel);
    if (failure) return { ok: false, error: failure };
    const refs: SharedFileRef[] = [];
    for (const { entry, file } of files) {
      if (!file) continue;
      file.completed = true;
      refs.push({
        id: file.id,
        title: str(entry.title) || file.filename,
        altText: file.altText,
        url: `/files/${file.id}`,
      });
    }
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    this.addMessage({
      channel,
      text: str(args.initial_comment),
      blocks: [],
      files: refs,
      ...(threadTs ? { threadTs } : {}),
    });
    return { ok: true, files: refs.map((ref) => ({ id: ref.id, title: ref.title })) };
  }

  private postMessage(args: Record<string, unknown>): Record<string, unknown> {
    const channel = str(args.channel);
    const failure = this.failingChannels.get(channel);
    if (failure) return { ok: false, error: failure };
    const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
    // As Slack does, a user id as the channel means the app's DM with that person.
    const direct = /^[UW][A-Z0-9]{2,}$/.test(channel);
    const message = this.addMessage({
      channel,
      text: str(args.text),
      blocks: blocksOf(args),
      ...(threadTs ? { threadTs } : {}),
      ...(direct ? { directTo: channel } : {}),
    });
    return { ok: true, channel, ts: message.ts };
  }

  /**
   * chat.getPermalink as Slack answers it: the message's link under the workspace (here the
   * stand-in's own address, which the playground page follows to the message), a reply's with its
   * thread; `channel_not_found` for a channel in `failingPermalinks`, `message_not_found` for no
   * such message.
   */
  private permalink(args: Record<string, unknown>): Record<string, unknown> {
    const channel = str(args.channel);
    const failure = this.failingPermalinks.get(channel);
    if (failure) return { ok: false, error: failure };
    const message = this.messages.find((m) => m.ts === args.message_ts && m.channel === channel && !m.visibleTo);
    if (!message) return { ok: false, error: 'message_not_found' };
    const path = `${this.url}/archives/${channel}/p${message.ts.replace('.', '')}`;
    const thread = message.threadTs ? `?thread_ts=${message.threadTs}&cid=${channel}` : '';
    return { ok: true, channel, permalink: `${path}${thread}` };
  }

  private updateMessage(args: Record<string, unknown>): Record<string, unknown> {
    const message = this.messages.find((m) => m.ts === args.ts && m.channel === args.channel);
    if (!message) return { ok: false, error: 'message_not_found' };
    message.text = str(args.text);
    message.blocks = blocksOf(args);
    this.emit('change');
    return { ok: true, channel: args.channel, ts: args.ts };
  }

  private openView(args: Record<string, unknown>): Record<string, unknown> {
    const trigger = this.triggers.get(str(args.trigger_id));
    if (!trigger || Date.now() - trigger.issuedAt > TRIGGER_LIFETIME_MS)
      return { ok: false, error: 'expired_trigger_id' };
    this.counter += 1;
    const id = `V${this.counter}`;
    // A person sees one modal at a time: a new one replaces whatever was left open before.
    for (const [openId, open] of this.views) if (open.userId === trigger.userId) this.views.delete(openId);
    this.views.set(id, { id, userId: trigger.userId, view: args.view as Record<string, unknown>, errors: {} });
    this.emit('change');
    return { ok: true, view: { id, hash: `hash-${this.counter}` } };
  }

  /** response_url semantics: replace the original message, or answer in the channel or privately. */
  private respond(id: string, args: Record<string, unknown>): void {
    const interaction = this.interactions.get(id);
    if (!interaction) return;
    const original = interaction.messageTs ? this.messages.find((m) => m.ts === interaction.messageTs) : undefined;
    if (args.replace_original === true && original) {
      original.text = str(args.text);
      original.blocks = blocksOf(args);
      this.emit('change');
      return;
    }
    const inChannel = args.response_type === 'in_channel';
    this.addMessage({
      channel: interaction.channel,
      text: str(args.text),
      blocks: blocksOf(args),
      ...(inChannel ? {} : { visibleTo: interaction.userId }),
    });
  }

  private addMessage(message: Omit<ChatMessage, 'ts'>): ChatMessage {
    this.counter += 1;
    const stored: ChatMessage = { ts: `1700000000.${String(this.counter).padStart(6, '0')}`, ...message };
    this.messages.push(stored);
    this.emit('change');
    return stored;
  }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const blocksOf = (args: Record<string, unknown>): unknown[] => (Array.isArray(args.blocks) ? args.blocks : []);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** WebClient sends form fields, with objects (blocks, view) as JSON strings. */
function decodeArgs(contentType: string, body: string): Record<string, unknown> {
  if (contentType.includes('application/json')) return JSON.parse(body || '{}') as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    args[key] = /^[[{]/.test(value) ? (JSON.parse(value) as unknown) : value;
  }
  return args;
}

export function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
