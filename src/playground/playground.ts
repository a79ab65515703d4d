/**
 * The playground: the real bot (startBot, HTTP mode, signature checks) against its built-in API
 * simulator, with a web page that plays Slack's part. The page's actions become requests signed
 * exactly as Slack signs them; the bot's Web API calls and response_url posts land in the
 * SlackStandIn, whose state the page renders. A development and demo tool: it refuses to run with
 * NODE_ENV=production, never uses real ClickHouse credentials, and listens on loopback only.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { z } from 'zod';
import { startBot, type BotHandle } from '../bot.js';
import { loadConfig } from '../config.js';
import type { BotLogger } from '../log.js';
import { applyServiceUpdate, validateUpdateBody } from '../simulator/state.js';
import { slackSignatureHeaders } from './signing.js';
import { crossOriginProblem } from './same-origin.js';
import { json, SlackStandIn } from './slack-stand-in.js';

export const PEOPLE = [
  { id: 'U0ALICE', name: 'Alice', role: 'requester' },
  { id: 'U0BOB', name: 'Bob', role: 'approver' },
  { id: 'U0CAROL', name: 'Carol', role: 'approver' },
  { id: 'U0DAVE', name: 'Dave', role: 'not an approver' },
] as const;
export const CHANNEL = { id: 'C0PLAYGROUND', name: 'data-platform' } as const;
/** Production needs Bob and Carol, dev IP adds need nobody, production is never opened to the world. */
export const DEMO_POLICY_FILE = fileURLToPath(new URL('./demo-policy.yaml', import.meta.url));

export interface Playground {
  url: string;
  bot: BotHandle;
  slack: SlackStandIn;
  stop(): Promise<void>;
}

export interface PlaygroundOptions {
  port?: number;
  /** Redis for the bot's stores; in memory when unset. */
  redisUrl?: string;
  logger?: BotLogger;
  /** The bot's clock and how often it looks for due reverts: the browser test moves time forward. */
  clock?: () => number;
  temporaryTickMs?: number;
  /** How often waiting requests are looked at for reminders (the browser test's reminder DM). */
  nudgeTickMs?: number;
}

export async function startPlayground(options: PlaygroundOptions = {}): Promise<Playground> {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('The playground is a development tool and does not run with NODE_ENV=production.');
  }
  const slack = await SlackStandIn.start({ port: options.port ?? 3000, host: '127.0.0.1' });
  const signingSecret = randomBytes(16).toString('hex');
  const config = loadConfig({
    SLACK_BOT_TOKEN: `xoxb-playground-${randomBytes(8).toString('hex')}`,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    APPROVERS: PEOPLE.filter((p) => p.role === 'approver')
      .map((p) => p.id)
      .join(','),
    POLICY_FILE: DEMO_POLICY_FILE,
    CHANGE_TTL_SECONDS: '3600',
    // Changes made "outside the bot" from the side panel should show at once, not after 10 s.
    CLICKHOUSE_CACHE_SECONDS: '0',
    LOG_LEVEL: 'info',
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
  });
  // Loopback only, like the page: the playground's bot is not for other machines to reach.
  const bot = await startBot(config, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.temporaryTickMs ? { temporaryTickMs: options.temporaryTickMs } : {}),
    ...(options.nudgeTickMs ? { nudgeTickMs: options.nudgeTickMs } : {}),
    channelPostIntervalMs: 300,
    host: '127.0.0.1',
  });
  const forward = forwarder(`http://127.0.0.1:${bot.port}/slack/events`, signingSecret);
  slack.route(pageRoutes());
  slack.route(uiRoutes(slack, bot, forward));
  return {
    url: slack.url,
    bot,
    slack,
    async stop() {
      await bot.stop();
      await slack.close();
    },
  };
}

/** A form body (commands, clicks, submissions) or an Events API event (JSON), as Slack sends each. */
type Forward = (payload: URLSearchParams | Record<string, unknown>) => Promise<{ status: number; body: string }>;

/** Sends a body to the bot, signed with the app's signing secret, as Slack does. */
function forwarder(url: string, secret: string): Forward {
  return async (payload) => {
    const form = payload instanceof URLSearchParams;
    const body = form ? payload.toString() : JSON.stringify(payload);
    const response = await request(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
        ...slackSignatureHeaders(body, secret),
      },
    });
    return { status: response.statusCode, body: await response.body.text() };
  };
}

// ---------------------------------------------------------------------------------------------
// The page

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

function pageRoutes() {
  let script: Promise<string> | undefined;
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== 'GET') return false;
    if (req.url === '/' || req.url === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(await readFile(`${PAGE_DIR}index.html`));
      return true;
    }
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return true;
    }
    if (req.url === '/style.css') {
      res.writeHead(200, { 'content-type': 'text/css; charset=utf-8' }).end(await readFile(`${PAGE_DIR}style.css`));
      return true;
    }
    if (req.url === '/app.js') {
      script ??= compilePageScript();
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(await script);
      return true;
    }
    return false;
  };
}

/** The page is TypeScript too; it is transpiled once, on first request, with the project's compiler. */
async function compilePageScript(): Promise<string> {
  const ts = await import('typescript');
  const source = await readFile(`${PAGE_DIR}app.ts`, 'utf8');
  return ts.default.transpileModule(source, {
    compilerOptions: { target: ts.default.ScriptTarget.ES2022, module: ts.default.ModuleKind.ESNext },
  }).outputText;
}

// ---------------------------------------------------------------------------------------------
// What the page does

const PersonId = z.enum(PEOPLE.map((p) => p.id) as [string, ...string[]]);
const CommandInput = z.object({ userId: PersonId, text: z.string().max(4000) });
const ClickInput = z.object({
  userId: PersonId,
  messageTs: z.string(),
  actionId: z.string(),
  blockId: z.string(),
  value: z.string(),
});
const SubmitInput = z.object({
  userId: PersonId,
  viewId: z.string(),
  values: z.record(z.string(), z.record(z.string(), z.unknown())),
});
const CloseInput = z.object({ viewId: z.string() });
const HomeOpenedInput = z.object({ userId: PersonId });
const HomeClickInput = z.object({ userId: PersonId, actionId: z.string(), blockId: z.string(), value: z.string() });
const OutsideInput = z.object({
  serviceId: z.string(),
  name: z.string().optional(),
  ipAdd: z.string().optional(),
  mysql: z.boolean().optional(),
});

function uiRoutes(slack: SlackStandIn, bot: BotHandle, forward: Forward) {
  const actions: Record<string, (body: unknown) => unknown> = {
    '/ui/command': async (body) => {
      const input = CommandInput.parse(body);
      const text = input.text.replace(/^\/clickhouse\s*/, '');
      slack.echoCommand(CHANNEL.id, input.userId, `/clickhouse ${text}`);
      const responseId = randomUUID();
      const triggerId = `${Date.now()}.${randomUUID()}`;
      slack.issueTrigger(triggerId, input.userId);
      const ack = await forward(
        new URLSearchParams({
          token: 'playground',
          team_id: 'T0TEAM',
          team_domain: 'playground',
          channel_id: CHANNEL.id,
          channel_name: CHANNEL.name,
          user_id: input.userId,
          user_name: nameOf(input.userId),
          command: '/clickhouse',
          text,
          api_app_id: 'A0PLAYGROUND',
          is_enterprise_install: 'false',
          response_url: slack.openInteraction(responseId, { channel: CHANNEL.id, userId: input.userId }),
          trigger_id: triggerId,
        }),
      );
      if (ack.status === 200) slack.answerInAck(responseId, ack.body);
      return ack;
    },
    '/ui/click': async (body) => {
      const input = ClickInput.parse(body);
      const responseUrl = slack.openInteraction(randomUUID(), {
        channel: CHANNEL.id,
        userId: input.userId,
        messageTs: input.messageTs,
      });
      // A click may open a form (Reject asks why), as Slack allows within 3 s of it.
      const triggerId = `${Date.now()}.${randomUUID()}`;
      slack.issueTrigger(triggerId, input.userId);
      const payload = {
        type: 'block_actions',
        user: { id: input.userId, username: nameOf(input.userId), name: nameOf(input.userId), team_id: 'T0TEAM' },
        api_app_id: 'A0PLAYGROUND',
        token: 'playground',
        container: { type: 'message', message_ts: input.messageTs, channel_id: CHANNEL.id, is_ephemeral: false },
        trigger_id: triggerId,
        team: { id: 'T0TEAM', domain: 'playground' },
        channel: CHANNEL,
        message: { type: 'message', ts: input.messageTs },
        response_url: responseUrl,
        actions: [buttonAction(input)],
      };
      return forward(new URLSearchParams({ payload: JSON.stringify(payload) }));
    },
    '/ui/submit': async (body) => {
      const input = SubmitInput.parse(body);
      const open = slack.views.get(input.viewId);
      if (!open) return { status: 404, body: '' };
      const payload = {
        type: 'view_submission',
        team: { id: 'T0TEAM', domain: 'playground' },
        user: { id: input.userId, username: nameOf(input.userId), name: nameOf(input.userId), team_id: 'T0TEAM' },
        api_app_id: 'A0PLAYGROUND',
        token: 'playground',
        trigger_id: `${Date.now()}.${randomUUID()}`,
        view: { ...open.view, id: open.id, team_id: 'T0TEAM', state: { values: input.values } },
      };
      const answer = await forward(new URLSearchParams({ payload: JSON.stringify(payload) }));
      const errors = answer.body
        ? (JSON.parse(answer.body) as { response_action?: string; errors?: Record<string, string> })
        : {};
      if (errors.response_action === 'errors' && errors.errors) slack.setViewErrors(open.id, errors.errors);
      else slack.closeView(open.id);
      return answer;
    },
    // The person looked at the bot's Home tab: Slack sends app_home_opened, the bot publishes it.
    '/ui/home-opened': (body) => {
      const input = HomeOpenedInput.parse(body);
      return forward({
        token: 'playground',
        team_id: 'T0TEAM',
        api_app_id: 'A0PLAYGROUND',
        type: 'event_callback',
        event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: 'app_home_opened',
          user: input.userId,
          channel: `D${input.userId.slice(1)}`,
          tab: 'home',
          event_ts: `${Date.now() / 1000}`,
        },
        authorizations: [{ team_id: 'T0TEAM', user_id: 'UBOT', is_bot: true, is_enterprise_install: false }],
      });
    },
    // A button in the Home tab: no channel, no message, no response_url (the bot answers by DM).
    '/ui/home-click': (body) => {
      const input = HomeClickInput.parse(body);
      const triggerId = `${Date.now()}.${randomUUID()}`;
      slack.issueTrigger(triggerId, input.userId);
      const payload = {
        type: 'block_actions',
        user: { id: input.userId, username: nameOf(input.userId), name: nameOf(input.userId), team_id: 'T0TEAM' },
        api_app_id: 'A0PLAYGROUND',
        token: 'playground',
        container: { type: 'view', view_id: `VHOME-${input.userId}` },
        trigger_id: triggerId,
        team: { id: 'T0TEAM', domain: 'playground' },
        view: { id: `VHOME-${input.userId}`, type: 'home', team_id: 'T0TEAM', blocks: [], state: { values: {} } },
        actions: [buttonAction(input)],
      };
      return forward(new URLSearchParams({ payload: JSON.stringify(payload) }));
    },
    '/ui/close': (body) => {
      slack.closeView(CloseInput.parse(body).viewId);
      return { ok: true };
    },
    '/ui/outside': (body) => {
      const result = changeOutsideBot(bot, OutsideInput.parse(body));
      slack.emit('change');
      return result;
    },
  };
  const port = Number(new URL(slack.url).port);
  return async (req: IncomingMessage, res: ServerResponse, body: string): Promise<boolean> => {
    if ((req.url ?? '').startsWith('/ui/')) {
      const problem = crossOriginProblem(req, port);
      if (problem) {
        json(res, { error: problem }, 403);
        return true;
      }
    }
    if (req.method === 'GET' && req.url === '/ui/state') {
      json(res, stateOf(slack, bot));
      return true;
    }
    if (req.method === 'GET' && req.url === '/ui/events') {
      streamChanges(slack, bot, req, res);
      return true;
    }
    const action = req.method === 'POST' ? actions[req.url ?? ''] : undefined;
    if (!action) return false;
    try {
      json(res, await action(JSON.parse(body || '{}') as unknown));
    } catch (error) {
      json(res, { error: error instanceof z.ZodError ? 'invalid input' : String(error) }, 400);
    }
    return true;
  };
}

const nameOf = (userId: string) => PEOPLE.find((p) => p.id === userId)?.name.toLowerCase() ?? userId;

function stateOf(slack: SlackStandIn, bot: BotHandle) {
  return {
    people: PEOPLE,
    channel: CHANNEL,
    messages: slack.messages,
    views: [...slack.views.values()],
    homes: Object.fromEntries(slack.homes),
    services: bot.simulator?.services() ?? [],
  };
}

/** Server-sent events: the whole state after every change (small enough for a demo organization). */
function streamChanges(slack: SlackStandIn, bot: BotHandle, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const send = () => res.write(`data: ${JSON.stringify(stateOf(slack, bot))}\n\n`);
  send();
  slack.on('change', send);
  const simulator = bot.simulator;
  simulator?.on('request', send);
  // The response's close, not the request's: the request closed when its (empty) body was read,
  // before this listener existed, so listening there kept every reloaded page's listeners.
  res.on('close', () => {
    slack.off('change', send);
    simulator?.off('request', send);
  });
}

/**
 * A change "in the console": it goes through the simulator's own PATCH rules (so the form accepts
 * exactly what the API would), but not through the API, so the bot's request log never sees it;
 * the activity log names a console user, as ClickHouse Cloud's would, so drift says who.
 */
function changeOutsideBot(
  bot: BotHandle,
  input: z.infer<typeof OutsideInput>,
): { ok: true } | { ok: false; error: string } {
  const simulator = bot.simulator;
  const service = simulator?.service(input.serviceId);
  if (!simulator || !service) return { ok: false, error: 'That service is gone from the simulator.' };
  const body: Record<string, unknown> = {};
  if (input.name !== undefined && input.name !== '') body.name = input.name;
  if (input.ipAdd !== undefined && input.ipAdd.trim() !== '') {
    body.ipAccessList = { add: [{ source: input.ipAdd.trim(), description: 'added outside the bot' }] };
  }
  if (input.mysql !== undefined) body.endpoints = [{ protocol: 'mysql', enabled: input.mysql }];
  if (Object.keys(body).length === 0)
    return { ok: false, error: 'Nothing to change: fill in a name, an IP or a MySQL choice.' };
  const update = validateUpdateBody(body);
  if (!update.ok) return { ok: false, error: `The API would refuse this: ${update.message}` };
  const next = applyServiceUpdate(service, update.value);
  if (!next.ok) return { ok: false, error: `The API would refuse this: ${next.message}` };
  simulator.changeInConsole(input.serviceId, next.value);
  return { ok: true };
}

/** The clicked button as Slack describes it in a block_actions payload. */
function buttonAction(input: { actionId: string; blockId: string; value: string }) {
  return {
    action_id: input.actionId,
    block_id: input.blockId,
    value: input.value,
    type: 'button',
    action_ts: `${Date.now() / 1000}`,
  };
}
