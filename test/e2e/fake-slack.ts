/**
 * A small stand-in for Slack's Web API and response_url endpoints, over real HTTP. It records
 * every call and lets tests await the one they expect instead of sleeping. views.open enforces
 * the 3-second trigger_id lifetime, as Slack does.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  /** Web API method (chat.postMessage...) or "response_url". */
  method: string;
  /** Form fields with JSON values decoded (blocks, view...), or the JSON body of response_url posts. */
  args: Record<string, unknown>;
  at: number;
}

const TRIGGER_LIFETIME_MS = 3_000;

export class FakeSlack extends EventEmitter<{ call: [SlackCall] }> {
  readonly calls: SlackCall[] = [];
  /** Channels where chat.postMessage fails with this error code (e.g. not_in_channel). */
  readonly failingChannels = new Map<string, string>();
  readonly userGroups = new Map<string, string[]>();
  private readonly triggers = new Map<string, number>();
  private server: Server | undefined;
  private messageCounter = 0;
  private viewCounter = 0;
  url = '';

  static async start(): Promise<FakeSlack> {
    const slack = new FakeSlack();
    await slack.listen();
    return slack;
  }

  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  responseUrl(id: string): string {
    return `${this.url}/respond/${id}`;
  }

  /** Remembers when a command carrying this trigger was sent; views.open checks its age. */
  issueTrigger(triggerId: string): void {
    this.triggers.set(triggerId, Date.now());
  }

  /** Calls of a method so far, optionally filtered. */
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
        reject(new Error(`timed out waiting for ${method}; calls so far: ${this.calls.map((c) => c.method).join(', ')}`));
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

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async listen(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const path = req.url ?? '';
    if (path.startsWith('/respond/')) {
      this.record('response_url', { ...(JSON.parse(body || '{}') as Record<string, unknown>), responseUrlId: path.slice('/respond/'.length) });
      return json(res, { ok: true });
    }
    const method = path.replace(/^\/api\//, '').split('?')[0] ?? '';
    const args = decodeArgs(req.headers['content-type'] ?? '', body);
    this.record(method, args);
    json(res, this.answer(method, args));
  }

  private record(method: string, args: Record<string, unknown>): void {
    const call = { method, args, at: Date.now() };
    this.calls.push(call);
    this.emit('call', call);
  }

  private answer(method: string, args: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return { ok: true, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T0TEAM', user: 'clickhouse', team: 'Test', url: 'https://test.slack.com/' };
      case 'chat.postMessage': {
        const failure = this.failingChannels.get(String(args.channel));
        if (failure) return { ok: false, error: failure };
        this.messageCounter += 1;
        return { ok: true, channel: args.channel, ts: `1700000000.${String(this.messageCounter).padStart(6, '0')}` };
      }
      case 'chat.update':
        return { ok: true, channel: args.channel, ts: args.ts };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: '1700000000.999999' };
      case 'views.open': {
        const issued = this.triggers.get(String(args.trigger_id));
        if (issued === undefined || Date.now() - issued > TRIGGER_LIFETIME_MS) return { ok: false, error: 'expired_trigger_id' };
        this.viewCounter += 1;
        return { ok: true, view: { id: `V${this.viewCounter}`, hash: `hash-${this.viewCounter}` } };
      }
      case 'views.update':
        return { ok: true, view: { id: args.view_id } };
      case 'usergroups.users.list':
        return { ok: true, users: this.userGroups.get(String(args.usergroup)) ?? [] };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
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

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
