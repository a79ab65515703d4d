/**
 * Starts the real bot (the same startBot as production) on a free port against the simulator,
 * a fake Slack Web API and a real Redis, and sends it requests signed and shaped as Slack does.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach } from 'vitest';
import { request } from 'undici';
import { startBot, type BotHandle, type BotOverrides } from '../../src/bot.js';
import type { CloudClientOptions } from '../../src/cloud/client.js';
import type { FollowSchedule } from '../../src/core/capacity/follow.js';
import { loadConfig } from '../../src/config.js';
import { createLogger, type BotLogger } from '../../src/log.js';
import { slackSignatureHeaders } from '../../src/playground/signing.js';
import { CloudSimulator } from '../../src/simulator/server.js';
import { demoServices, DEMO_ORG_ID } from '../../src/simulator/seed.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import type { ChangeStore, ScheduleStore } from '../../src/ports/index.js';
import { isUserId } from '../../src/core/policy/progress.js';
import { connectRedis, RedisChangeStore, RedisScheduleStore } from '../../src/store/index.js';
import { RedisCostStore } from '../../src/store/redis/cost-store.js';
import { RedisSecretVault } from '../../src/store/redis/secret-vault.js';
import { SecretCipher, secretsKeyBytes } from '../../src/store/secret-cipher.js';
import { FakeSlack } from './fake-slack.js';
import type { Envelope, SocketModeServer } from '../support/socket-mode-server.js';

export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const KEY_ID = 'testKeyId';
export const KEY_SECRET = 'test-key-secret-must-never-be-logged';
import { REDIS_URL } from '../support/redis.js';

export { REDIS_URL };
export const CHANNEL = 'C0CHANNEL';
export const SOCKET_APP_TOKEN = 'xapp-1-A0APP-test-app-level-token';
export const USERS = {
  requester: 'U0REQUESTER',
  approver: 'U0APPROVER',
  second: 'U0SECOND',
  outsider: 'U0OUTSIDER',
} as const;

export interface HarnessOptions {
  env?: Record<string, string>;
  /**
   * Run the bot in Socket Mode against this server (the fake Web API hands out its URL); the
   * harness's command/click/submitView then deliver envelopes instead of HTTP requests.
   */
  socketMode?: SocketModeServer;
  /** Log through this logger (a JSON one, say) instead of the harness's text lines in `logs`. */
  logger?: BotLogger;
  services?: ServiceRecordLike[];
  /** How long the simulator's stopping, starting and awaking last (its own default otherwise). */
  simulatorTransitionMs?: number;
  /** Share a Redis key prefix between bots (two replicas, restarts); random otherwise. */
  keyPrefix?: string;
  /** Reuse these instead of starting new ones (a second replica). */
  simulator?: CloudSimulator;
  slack?: FakeSlack;
  clock?: () => number;
  /** How often due reverts and reminders of temporary changes are looked for. */
  temporaryTickMs?: number;
  /** How often waiting requests are looked at for reminders and escalation. */
  nudgeTickMs?: number;
  /** How long a summary waits for its spend section (the bot's default is 5 s). */
  summarySpendWaitMs?: number;
  /** How long a summary waits for the keys (the bot's default is 5 s). */
  summaryKeysWaitMs?: number;
  /** false: summaries without their spend section. */
  summarySpend?: boolean;
  /** The follow schedule after the API accepted a stop or a scaling (tests read every few ms). */
  followSchedule?: Partial<FollowSchedule>;
  /** Spacing of posts per channel; 0 in tests unless a test measures the pacing. */
  channelPostIntervalMs?: number;
  /** Wraps the bot's Redis schedule store, e.g. to record which replica claimed which fire time. */
  wrapScheduleStore?: (store: ScheduleStore) => ScheduleStore;
  /**
   * A Redis of the test's own (restart and crash tests). Both stores then share one connection,
   * as in production, whose errors go to the harness log instead of the console.
   */
  redisUrl?: string;
  /** Client tuning on top of the harness's fast defaults. */
  cloudClient?: Partial<CloudClientOptions>;
  /**
   * Let the bot open its own stores from its config (REDIS_URL and REDIS_CLUSTER in `env`), as
   * production does, instead of stores under `keyPrefix` (the Redis Cluster tests).
   */
  storesFromConfig?: boolean;
  /** The change store keeps audit entries this long (a fraction of a day lets a test see it pass). */
  auditRetentionDays?: number;
  /**
   * Check the API key at start, as production does. Off by default: that read would count among
   * the API requests tests count, and fill the cache before faults armed for the first read.
   */
  checkCloudKey?: boolean;
  /**
   * Run with ORGANIZATIONS_FILE: the first organization is the harness's simulator, each other
   * one gets a simulator of its own (its own org id and key), as separate organizations are.
   */
  organizations?: OrganizationSetup[];
  /** Listeners registered after the bot's own (BotOverrides.extraListeners). */
  extraListeners?: BotOverrides['extraListeners'];
}

export interface OrganizationSetup {
  name: string;
  /** Channel id -> its rules as the file writes them ({ allow: [...], services: { tags: {...} } }). */
  channels: Record<string, Record<string, unknown>>;
  /** The services of an organization after the first (the demo organization's otherwise). */
  services?: ServiceRecordLike[];
}

export interface Harness {
  bot: BotHandle;
  simulator: CloudSimulator;
  /** With `organizations`: each organization's simulator by name (the first is `simulator`). */
  simulators: Record<string, CloudSimulator>;
  /**
   * With `organizations`: the file, and how to write it anew (then `bot.reloadOrganizations()`);
   * the environment the keys are read from (changed, a reload reads the new values).
   */
  organizationsFile?: {
    path: string;
    write(organizations: OrganizationSetup[]): Promise<void>;
    environment: Record<string, string>;
  };
  slack: FakeSlack;
  keyPrefix: string;
  url: string;
  logs: string[];
  command(text: string, user?: string, channel?: string): Promise<Ack>;
  /**
   * `options.trigger`: Slack's trigger_id is valid for views.open (a form the click opens); off by default.
   * `options.channel`: the channel (or a DM's D… id) the button is clicked in; CHANNEL otherwise.
   */
  click(
    actionId: string,
    value: string,
    user: string,
    messageTs?: string,
    options?: { trigger?: boolean; channel?: string },
  ): Promise<Ack>;
  submitView(view: Record<string, unknown>, values: Record<string, unknown>, user: string): Promise<Ack>;
  /** An Events API event (app_home_opened…), wrapped in its event_callback as Slack sends it. */
  event(event: Record<string, unknown>): Promise<Ack>;
  /** A click on a button of the Home tab: no channel, no message, no response_url. */
  clickHome(actionId: string, value: string, user: string): Promise<Ack>;
  /** Sends a raw body with chosen signature headers (for the 401 tests). */
  raw(body: string, headers: Record<string, string>): Promise<Ack>;
  stop(): Promise<void>;
}

export interface Ack {
  status: number;
  body: string;
  /** Milliseconds from sending the request to the end of the HTTP answer. */
  elapsedMs: number;
  responseUrlId: string;
  triggerId: string;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const simulator =
    options.simulator ??
    (await CloudSimulator.start({
      keyId: KEY_ID,
      keySecret: KEY_SECRET,
      orgId: DEMO_ORG_ID,
      services: options.services ?? demoServices(),
      ...(options.simulatorTransitionMs === undefined ? {} : { transitionMs: options.simulatorTransitionMs }),
    }));
  const tenants = options.organizations ? await startOrganizations(simulator, options.organizations) : undefined;
  const slack = options.slack ?? (await FakeSlack.start());
  const keyPrefix = options.keyPrefix ?? `test:${randomUUID().slice(0, 8)}:`;
  const logs: string[] = [];
  const logger = options.logger ?? createLogger({ level: 'debug', sink: (line) => logs.push(line) });
  if (options.socketMode) {
    const server = options.socketMode;
    slack.socketModeUrl = () => server.url;
  }
  const config = loadConfig({
    ...(options.socketMode ? { SLACK_APP_TOKEN: SOCKET_APP_TOKEN } : {}),
    SLACK_BOT_TOKEN: 'xoxb-test-token-never-logged',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PORT: '0',
    CLICKHOUSE_API_URL: simulator.url,
    CLICKHOUSE_KEY_ID: KEY_ID,
    CLICKHOUSE_KEY_SECRET: KEY_SECRET,
    CLICKHOUSE_ORG_ID: DEMO_ORG_ID,
    LOG_LEVEL: 'debug',
    // Tests fire schedules every second or two; production refuses more often than every 15 minutes.
    SCHEDULE_MIN_INTERVAL_SECONDS: '1',
    ...(tenants ? { ORGANIZATIONS_FILE: tenants.path } : {}),
    ...options.env,
  });
  const shared = options.redisUrl === undefined ? undefined : connectRedis(options.redisUrl);
  shared?.on('error', (error: Error) => logs.push(`redis connection: ${error.message}`));
  // The cost store borrows a connection: the shared one, or one of its own closed at stop.
  const ownCostRedis = shared === undefined && !options.storesFromConfig ? connectRedis(REDIS_URL) : undefined;
  const secretsKey = options.env?.['SECRETS_KEY'] ? secretsKeyBytes(options.env['SECRETS_KEY']) : undefined;
  const wrapScheduleStore = options.wrapScheduleStore ?? ((schedules: ScheduleStore) => schedules);
  const stores = options.storesFromConfig
    ? {}
    : {
        changeStore: new RedisChangeStore(shared ?? REDIS_URL, {
          keyPrefix,
          ...(options.auditRetentionDays ? { auditRetentionDays: options.auditRetentionDays } : {}),
        }) as ChangeStore,
        scheduleStore: wrapScheduleStore(new RedisScheduleStore(shared ?? REDIS_URL, { keyPrefix })),
        costStore: new RedisCostStore(shared ?? ownCostRedis ?? connectRedis(REDIS_URL), { keyPrefix }),
        // With SECRETS_KEY, secrets are sealed in Redis under this bot's prefix, as production keeps them.
        ...(secretsKey
          ? {
              secretVault: new RedisSecretVault(
                shared ?? ownCostRedis ?? connectRedis(REDIS_URL),
                new SecretCipher(secretsKey),
                { keyPrefix },
              ),
            }
          : {}),
      };
  const bot = await startBot(config, {
    logger,
    ...stores,
    channelPostIntervalMs: options.channelPostIntervalMs ?? 0,
    recheckDelaysMs: [20, 40],
    scheduleSyncMs: 200,
    processMetrics: false,
    checkCloudKey: options.checkCloudKey ?? false,
    // Audit export (AUDIT_SINKS): look for new events and retry a failing sink within milliseconds.
    auditPollMs: 20,
    auditRetryBaseMs: 10,
    ...(tenants ? { environment: tenants.environment } : {}),
    // Socket Mode reconnects after this times the failures in a row (5 s by default).
    socketClientPingTimeoutMs: 2_000,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.temporaryTickMs ? { temporaryTickMs: options.temporaryTickMs } : {}),
    ...(options.nudgeTickMs ? { nudgeTickMs: options.nudgeTickMs } : {}),
    ...(options.summarySpendWaitMs === undefined ? {} : { summarySpendWaitMs: options.summarySpendWaitMs }),
    ...(options.summaryKeysWaitMs === undefined ? {} : { summaryKeysWaitMs: options.summaryKeysWaitMs }),
    ...(options.summarySpend === undefined ? {} : { summarySpend: options.summarySpend }),
    ...(options.followSchedule ? { followSchedule: options.followSchedule } : {}),
    ...(options.extraListeners ? { extraListeners: options.extraListeners } : {}),
    cloudClient: {
      throttle: false,
      backoffBaseMs: 5,
      backoffMaxMs: 20,
      rateLimitPaddingMs: 0,
      rateLimitBudgetMs: 5_000,
      ...options.cloudClient,
    },
  });
  const url = `http://127.0.0.1:${bot.port}/slack/events`;

  return {
    bot,
    simulator,
    simulators: tenants?.simulators ?? {},
    ...(tenants
      ? { organizationsFile: { path: tenants.path, write: tenants.write, environment: tenants.environment } }
      : {}),
    slack,
    keyPrefix,
    url,
    logs,
    ...(options.socketMode ? socketSender(options.socketMode, slack) : slackSender(url, slack)),
    async stop() {
      await bot.stop();
      // QUIT would wait in the offline queue while Redis is down.
      if (shared?.status === 'ready') await shared.quit().catch(() => shared.disconnect());
      else shared?.disconnect();
      if (ownCostRedis?.status === 'ready') await ownCostRedis.quit().catch(() => ownCostRedis.disconnect());
      else ownCostRedis?.disconnect();
      if (!options.slack) await slack.close();
      if (!options.simulator) await simulator.close();
      await tenants?.close();
    },
  };
}

/**
 * The organizations of ORGANIZATIONS_FILE: the first is `first` (the demo org id), each other a
 * simulator of its own; keys are in an environment of their own, never in the file.
 */
async function startOrganizations(first: CloudSimulator, setups: OrganizationSetup[]) {
  const simulators: Record<string, CloudSimulator> = {};
  const ids: Record<string, string> = {};
  const environment: Record<string, string> = {};
  const started: CloudSimulator[] = [];
  for (const [index, setup] of setups.entries()) {
    const envName = setup.name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
    const keyId = index === 0 ? KEY_ID : `key-${setup.name}`;
    const keySecret = index === 0 ? KEY_SECRET : `secret-of-${setup.name}-never-logged`;
    const orgId = index === 0 ? DEMO_ORG_ID : randomUUID();
    const simulator =
      index === 0
        ? first
        : await CloudSimulator.start({ keyId, keySecret, orgId, services: setup.services ?? demoServices() });
    if (index > 0) started.push(simulator);
    simulators[setup.name] = simulator;
    ids[setup.name] = orgId;
    environment[`CH_${envName}_KEY_ID`] = keyId;
    environment[`CH_${envName}_KEY_SECRET`] = keySecret;
  }
  const dir = await mkdtemp(join(tmpdir(), 'orgs-'));
  const path = join(dir, 'organizations.yaml');
  const write = (organizations: OrganizationSetup[]) =>
    writeFile(
      path,
      stringify({
        organizations: organizations.map((setup) => {
          const envName = setup.name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
          return {
            name: setup.name,
            id: ids[setup.name] ?? randomUUID(),
            key_id_env: `CH_${envName}_KEY_ID`,
            key_secret_env: `CH_${envName}_KEY_SECRET`,
            api_url: simulators[setup.name]?.url,
            channels: setup.channels,
          };
        }),
      }),
    );
  await write(setups);
  return {
    path,
    simulators,
    environment,
    write,
    async close() {
      await Promise.all(started.map((simulator) => simulator.close()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type SlackSender = Pick<Harness, 'command' | 'click' | 'submitView' | 'event' | 'clickHome' | 'raw'>;

/** Requests signed and shaped as Slack sends them, to any bot URL (also a bot in a child process). */
export function slackSender(url: string, slack: FakeSlack): SlackSender {
  const send = async (
    body: string,
    contentType: string,
    extra: Omit<Ack, 'status' | 'body' | 'elapsedMs'>,
  ): Promise<Ack> => {
    const timestamp = Math.floor(Date.now() / 1000).toString();
    const headers = { 'content-type': contentType, ...signatureHeaders(body, timestamp) };
    return post(url, body, headers, extra);
  };

  return {
    async command(text, user = USERS.requester, channel = CHANNEL) {
      const { fields, responseUrlId, triggerId } = commandFields(slack, text, user, channel);
      const ack = await send(new URLSearchParams(fields).toString(), 'application/x-www-form-urlencoded', {
        responseUrlId,
        triggerId,
      });
      if (ack.status === 200) slack.answerInAck(responseUrlId, ack.body);
      return ack;
    },
    click(actionId, value, user, messageTs, options) {
      const { payload, responseUrlId } = clickPayload(slack, actionId, value, user, messageTs, options?.channel);
      if (options?.trigger) slack.issueTrigger(payload.trigger_id, user);
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      return send(body, 'application/x-www-form-urlencoded', { responseUrlId, triggerId: payload.trigger_id });
    },
    submitView(view, values, user) {
      const payload = viewSubmissionPayload(view, values, user);
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      return send(body, 'application/x-www-form-urlencoded', { responseUrlId: '', triggerId: payload.trigger_id });
    },
    event(event) {
      return send(JSON.stringify(eventCallback(event)), 'application/json', { responseUrlId: '', triggerId: '' });
    },
    clickHome(actionId, value, user) {
      const payload = homeClickPayload(actionId, value, user);
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      return send(body, 'application/x-www-form-urlencoded', { responseUrlId: '', triggerId: payload.trigger_id });
    },
    raw(body, headers) {
      return post(url, body, headers, { responseUrlId: '', triggerId: '' });
    },
  };
}

/** A slash command's fields as Slack sends them (form fields over HTTP, an object in Socket Mode). */
export function commandFields(
  slack: FakeSlack,
  text: string,
  user: string = USERS.requester,
  channel: string = CHANNEL,
) {
  const responseUrlId = randomUUID();
  const triggerId = `${Date.now()}.${randomUUID()}`;
  slack.issueTrigger(triggerId);
  const fields = {
    token: 'legacy-verification-token',
    team_id: 'T0TEAM',
    team_domain: 'test',
    channel_id: channel,
    channel_name: 'ops',
    user_id: user,
    user_name: user.toLowerCase(),
    command: '/clickhouse',
    text,
    api_app_id: 'A0APP',
    is_enterprise_install: 'false',
    response_url: slack.responseUrl(responseUrlId),
    trigger_id: triggerId,
  };
  return { fields, responseUrlId, triggerId };
}

/** A block_actions payload: a button click on a message. */
export function clickPayload(
  slack: FakeSlack,
  actionId: string,
  value: string,
  user: string,
  messageTs = '1700000000.000001',
  channel = CHANNEL,
) {
  const responseUrlId = randomUUID();
  const payload = {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0TEAM' },
    api_app_id: 'A0APP',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: messageTs, channel_id: channel, is_ephemeral: false },
    trigger_id: `${Date.now()}.${randomUUID()}`,
    team: { id: 'T0TEAM', domain: 'test' },
    channel: { id: channel, name: 'ops' },
    message: { type: 'message', ts: messageTs, text: 'Change request' },
    response_url: slack.responseUrl(responseUrlId),
    actions: [
      {
        action_id: actionId,
        block_id: 'change_actions',
        text: { type: 'plain_text', text: actionId },
        value,
        type: 'button',
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
  return { payload, responseUrlId };
}

/** An event as the Events API delivers it: inside an event_callback naming the app and the team. */
export function eventCallback(event: Record<string, unknown>) {
  return {
    token: 'legacy-verification-token',
    team_id: 'T0TEAM',
    api_app_id: 'A0APP',
    event: { event_ts: `${Date.now() / 1000}`, ...event },
    type: 'event_callback',
    event_id: `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: 'T0TEAM', user_id: 'UBOT', is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
  };
}

/** A block_actions payload from the Home tab: its container is the view; it has no channel nor response_url. */
export function homeClickPayload(actionId: string, value: string, user: string) {
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0TEAM' },
    api_app_id: 'A0APP',
    token: 'legacy-verification-token',
    container: { type: 'view', view_id: `VHOME-${user}` },
    trigger_id: `${Date.now()}.${randomUUID()}`,
    team: { id: 'T0TEAM', domain: 'test' },
    view: { id: `VHOME-${user}`, type: 'home', team_id: 'T0TEAM', blocks: [], state: { values: {} } },
    actions: [
      {
        action_id: actionId,
        block_id: 'home_waiting_0',
        text: { type: 'plain_text', text: actionId },
        value,
        type: 'button',
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/** A view_submission payload: the modal submitted with these state values. */
export function viewSubmissionPayload(view: Record<string, unknown>, values: Record<string, unknown>, user: string) {
  return {
    type: 'view_submission',
    team: { id: 'T0TEAM', domain: 'test' },
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0TEAM' },
    api_app_id: 'A0APP',
    token: 'legacy-verification-token',
    trigger_id: `${Date.now()}.${randomUUID()}`,
    view: { ...view, id: 'V1', team_id: 'T0TEAM', hash: 'hash-1', state: { values } },
  };
}

/**
 * The same interactions as envelopes over Socket Mode, on the first open connection unless one
 * is named. An envelope not acknowledged within 3 s rejects (Slack would retry it).
 */
export function socketSender(server: SocketModeServer, slack: FakeSlack, connection?: () => number): SlackSender {
  const deliver = async (
    type: Envelope['type'],
    payload: Record<string, unknown>,
    extra: Omit<Ack, 'status' | 'body' | 'elapsedMs'>,
  ): Promise<Ack> => {
    const ack = await server.deliver(type, payload, connection ? { connection: connection() } : {});
    return {
      status: 200,
      body: Object.keys(ack.payload).length === 0 ? '' : JSON.stringify(ack.payload),
      elapsedMs: ack.elapsedMs,
      ...extra,
    };
  };
  return {
    async command(text, user, channel) {
      const { fields, responseUrlId, triggerId } = commandFields(slack, text, user, channel);
      const ack = await deliver('slash_commands', fields, { responseUrlId, triggerId });
      slack.answerInAck(responseUrlId, ack.body);
      return ack;
    },
    click(actionId, value, user, messageTs, options) {
      const { payload, responseUrlId } = clickPayload(slack, actionId, value, user, messageTs, options?.channel);
      if (options?.trigger) slack.issueTrigger(payload.trigger_id, user);
      return deliver('interactive', payload, { responseUrlId, triggerId: payload.trigger_id });
    },
    submitView(view, values, user) {
      const payload = viewSubmissionPayload(view, values, user);
      return deliver('interactive', payload, { responseUrlId: '', triggerId: payload.trigger_id });
    },
    event(event) {
      return deliver('events_api', eventCallback(event), { responseUrlId: '', triggerId: '' });
    },
    clickHome(actionId, value, user) {
      const payload = homeClickPayload(actionId, value, user);
      return deliver('interactive', payload, { responseUrlId: '', triggerId: payload.trigger_id });
    },
    raw() {
      return Promise.reject(
        new Error('Socket Mode has no raw HTTP requests: Slack authenticates the connection, not each envelope'),
      );
    },
  };
}

export function signatureHeaders(body: string, timestamp: string, secret = SIGNING_SECRET): Record<string, string> {
  return slackSignatureHeaders(body, secret, timestamp);
}

async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  extra: Omit<Ack, 'status' | 'body' | 'elapsedMs'>,
): Promise<Ack> {
  const started = performance.now();
  const response = await request(url, { method: 'POST', body, headers });
  const text = await response.body.text();
  return { status: response.statusCode, body: text, elapsedMs: performance.now() - started, ...extra };
}

/** The text of every mrkdwn/plain text object in a message, joined: for content assertions. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value && typeof value === 'object') return Object.values(value).map(textOf).join('\n');
  return '';
}

/**
 * A harness factory for one test file: every harness it starts is stopped after each test.
 * `defaults` are merged under each call's options (env merged key by key).
 */
export function useHarnesses(defaults: HarnessOptions = {}): (options?: HarnessOptions) => Promise<Harness> {
  const running: Harness[] = [];
  afterEach(async () => {
    while (running.length > 0) await running.pop()?.stop();
  });
  return async (options = {}) => {
    const h = await startHarness({ ...defaults, ...options, env: { ...defaults.env, ...options.env } });
    running.push(h);
    return h;
  };
}

/** The private answer to a command or click (its response_url post), as text. */
export function answerText(h: Harness, ack: Ack, timeoutMs = 10_000): Promise<string> {
  return h.slack
    .waitFor('response_url', (a) => a.responseUrlId === ack.responseUrlId, { timeoutMs })
    .then((c) => textOf(c.args));
}

/**
 * Asks for a change by command and waits until it is complete: posted in the channel and
 * confirmed to the requester (which happens after its message ts is stored).
 */
export async function requestChange(h: Harness, text: string, user: string = USERS.requester, channel = CHANNEL) {
  const after = h.slack.calls.length;
  const ack = await h.command(text, user, channel);
  // A DM to an approver (channel = a user id) also says "Change request", and one for an earlier
  // request may arrive late: only a post in a channel is the request's message.
  const posted = await h.slack.waitFor(
    'chat.postMessage',
    (a) => !isUserId(String(a.channel)) && textOf(a.blocks).includes('Change request'),
    { after },
  );
  // Its own id is the one its status line names (a warning may name another open request first).
  const message = textOf(posted.args.blocks);
  const id = /Request `(CR-[0-9A-F]{10})`/.exec(message)?.[1] ?? /CR-[0-9A-F]{10}/.exec(message)?.[0];
  if (!id) throw new Error(`no request id in ${message}`);
  const confirmation = await answerText(h, ack);
  if (!confirmation.includes(id)) throw new Error(`the requester was not told about ${id}: ${confirmation}`);
  return { id, posted, ack };
}

/** Resolves once Slack has received `count` calls of `method`; bounded by `timeoutMs`. */
export function callCount(slack: FakeSlack, method: string, count: number, timeoutMs: number): Promise<number> {
  const now = () => slack.callsOf(method).length;
  if (now() >= count) return Promise.resolve(now());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      slack.off('call', onCall);
      reject(new Error(`timed out: ${now()} of ${count} ${method} calls`));
    }, timeoutMs);
    const onCall = () => {
      if (now() < count) return;
      clearTimeout(timer);
      slack.off('call', onCall);
      resolve(now());
    };
    slack.on('call', onCall);
  });
}

/** Sets (or, with undefined, removes) a service's env tag in the simulator, as someone in the console would. */
export function setEnvTag(h: Harness, serviceId: string, env: string | undefined): void {
  const tags = (h.simulator.service(serviceId)?.tags ?? []).filter((t) => t.key !== 'env');
  h.simulator.changeOutsideBot(serviceId, { tags: env ? [...tags, { key: 'env', value: env }] : tags });
}

export const MINUTE = 60_000;

/** A clock the test moves forward; shared by replicas so they agree on what is due. */
export function movableClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms: number) => (offset += ms) };
}

/** The ts of a request's message in its channel (its thread holds reverts, results, reminders). */
export async function messageTsOf(h: Harness, id: string): Promise<string> {
  const ts = (await h.bot.changeStore.get(id))?.messageTs;
  if (!ts) throw new Error(`${id} has no message`);
  return ts;
}

/** The PATCH requests the simulator received on one endpoint (`/replicaScaling`, `/state`). */
export const patchesTo = (h: Harness, path: string) =>
  h.simulator.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(path));

/** Resolves once a request's message says Applied. */
export function appliedMessage(h: Harness, id: string) {
  return h.slack.waitFor('chat.update', (a) => isMessageOf(a, id) && textOf(a.blocks).includes('Applied'));
}

/**
 * Whether a chat.update is the request's own message (its text starts with its id), not another
 * request's that names it (a warning about an open request of the same service does).
 */
export function isMessageOf(args: Record<string, unknown>, id: string): boolean {
  return typeof args['text'] === 'string' && args['text'].startsWith(`Change request ${id} `);
}

/**
 * One simulator, one Slack and one Redis key prefix for several bots (replicas, restarts), with a
 * movable clock they may share; closed after `test`.
 */
export async function withSharedBackends(
  test: (shared: {
    clock: ReturnType<typeof movableClock>;
    simulator: CloudSimulator;
    slack: FakeSlack;
    keyPrefix: string;
  }) => Promise<void>,
): Promise<void> {
  const simulator = await CloudSimulator.start({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
  });
  const slack = await FakeSlack.start();
  try {
    await test({ clock: movableClock(), simulator, slack, keyPrefix: `test:${randomUUID().slice(0, 8)}:` });
  } finally {
    await slack.close();
    await simulator.close();
  }
}

/**
 * A call to the simulator's API as the console or another tool would make it, with the harness's
 * key (a change made outside the bot); fails the test unless it answers 200.
 */
export async function callSimulatorApi(h: Harness, method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${h.simulator.url}/v1/organizations/${h.simulator.orgId}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}
