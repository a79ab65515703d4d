/**
 * The composition root: builds every adapter from the config, wires them into the Slack app, and
 * knows how to shut them down in order. main.ts calls it for production; tests call it with their
 * own config (fake Slack, simulator, real Redis) so they run the very same wiring.
 */
import { ApproverPolicy } from './approval/approvers.js';
import { PolicyFile, type ReloadResult } from './approval/policy-file.js';
import { ChangeRequests } from './approval/change-requests.js';
import { CloudClient, type CloudClientOptions } from './cloud/client.js';
import type { BotServices } from './commands/context.js';
import type { Config } from './config.js';
import { createLogger, type BotLogger } from './log.js';
import { CloudSimulator } from './simulator/server.js';
import { DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG_ID, demoServices } from './simulator/seed.js';
import { boltModals, createSlackApp } from './slack/app.js';
import { slackMessenger } from './slack/messenger.js';
import { Scheduler } from './scheduler/scheduler.js';
import { pacedMessenger } from './slack/pacing.js';
import type { ChangeStore, ScheduleStore } from './ports/index.js';
import { closeQuietly, connectRedis, MemoryChangeStore, MemoryScheduleStore, RedisChangeStore, RedisScheduleStore } from './store/index.js';
import { Summaries } from './summary/summaries.js';

export interface BotHandle {
  /** The HTTP port bound (Slack requests and /healthz). */
  port: number;
  services: BotServices;
  changes: ChangeRequests;
  store: ChangeStore;
  scheduler: Scheduler;
  /** The embedded simulator in demo mode. */
  simulator: CloudSimulator | undefined;
  /** Settles when requests abandoned in "applying" by a dead replica have been reconciled. */
  reconciledAtStart: Promise<number>;
  /** Re-reads POLICY_FILE (SIGHUP); a bad file keeps the rules in force and is logged. */
  reloadPolicy(): Promise<ReloadResult>;
  /** Graceful stop: refuse new work, let approvals in flight finish, close connections. */
  stop(): Promise<void>;
}

export interface BotOverrides {
  logger?: BotLogger;
  /** Client tuning for tests (retry timings, throttle). */
  cloudClient?: Partial<CloudClientOptions>;
  /** Use this store instead of the one the config names. */
  store?: ChangeStore;
  /** The approval flow's clock (tests move it past a request's expiry). */
  clock?: () => number;
  /** Use this schedule store instead of the one the config names. */
  scheduleStore?: ScheduleStore;
  /** Spacing of posts to one channel (Slack allows about one a second). */
  channelPostIntervalMs?: number;
  /** How often schedules are re-read from the store. */
  scheduleSyncMs?: number;
  /** A request in "applying" longer than this is taken for abandoned by a dead replica. */
  stuckAfterMs?: number;
  /** Pauses between re-reads when an update's outcome is unknown. */
  recheckDelaysMs?: number[];
}

const DRAIN_LIMIT_MS = 8_000;
/**
 * Longer than any live approval can take: two reads and a PATCH, each with up to four attempts of
 * one request timeout and a 30 s rate-limit budget, plus the re-checks of an unknown outcome.
 */
const stuckAfterMs = (timeoutMs: number) => 3 * (4 * timeoutMs + 30_000) + 30_000;
const RECONCILE_EVERY_MS = 15_000;

export async function startBot(config: Config, overrides: BotOverrides = {}): Promise<BotHandle> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  logger.addSecrets(config.slack.botToken, config.slack.signingSecret, config.slack.appToken);
  // First: a bad policy file stops the bot before it opens any connection.
  const rules = await PolicyFile.open(config.approvals.policyFile, logger);
  const approvalRules = { current: () => rules.current(), defaults: { approvers: config.approvals.approvers, allowSelfApproval: config.approvals.allowSelfApproval } };
  const { cloud, simulator } = await connectCloud(config, logger, overrides.cloudClient);
  const stores = openStores(config, logger, overrides);
  const { store } = stores;
  let accepting = true;
  let wired: { changes: ChangeRequests; services: BotServices; scheduler: Scheduler } | undefined;

  const slack = createSlackApp(
    {
      botToken: config.slack.botToken,
      signingSecret: config.slack.signingSecret,
      appToken: config.slack.appToken,
      apiUrl: config.slack.apiUrl,
      port: config.slack.port,
      logger,
      healthy: () => store.ping(),
    },
    (app) => {
      const messenger = pacedMessenger(slackMessenger(app.client), overrides.channelPostIntervalMs ?? 1_000);
      const policy = new ApproverPolicy({ ...approvalRules.defaults, messenger, policy: approvalRules.current });
      const changes = new ChangeRequests({ cloud, store, messenger, policy, ttlMs: config.approvals.changeTtlSeconds * 1000, logger, ...(overrides.clock ? { now: overrides.clock } : {}), ...(overrides.recheckDelaysMs ? { recheckDelaysMs: overrides.recheckDelaysMs } : {}) });
      const summaries = new Summaries({ cloud, changes: store, snapshots: stores.schedules, messenger, logger });
      const scheduler = new Scheduler({
        store: stores.schedules,
        logger,
        ...(overrides.scheduleSyncMs ? { syncIntervalMs: overrides.scheduleSyncMs } : {}),
        run: async (schedule) => {
          await summaries.post({ channelId: schedule.channelId, filters: schedule.filters, snapshotKey: `schedule:${schedule.id}`, title: 'Scheduled ClickHouse Cloud summary', scheduled: true });
        },
      });
      const services: BotServices = {
        cloud,
        store,
        changes,
        approvalRules,
        modals: boltModals(app),
        schedules: stores.schedules,
        scheduler,
        summaries,
        summaryTimeZone: config.summaryTimeZone,
        logger,
        slashCommand: config.slack.slashCommand,
      };
      wired = { changes, services, scheduler };
      return { services, changes, messenger, accepting: () => accepting };
    },
  );
  if (!wired) throw new Error('the Slack app was not wired');
  const { changes, services, scheduler } = wired;
  const port = await slack.start();
  await scheduler.start();
  let reconciling: Promise<number> | undefined;
  const reconcile = () => {
    // One pass at a time: a slow API must not stack passes on top of each other.
    reconciling ??= changes
      .reconcileStuck(overrides.stuckAfterMs ?? stuckAfterMs(config.clickhouse.timeoutMs))
      .catch((error: unknown) => {
        logger.warn(`reconciling abandoned approvals failed: ${error instanceof Error ? error.message : String(error)}`);
        return 0;
      })
      .finally(() => {
        reconciling = undefined;
      });
    return reconciling;
  };
  const reconciledAtStart = reconcile();
  const reconcileTimer = setInterval(() => void reconcile(), RECONCILE_EVERY_MS).unref();
  logger.info(`bot listening: ${config.slack.appToken ? 'Socket Mode' : `HTTP on port ${port} (POST /slack/events)`}, health at /healthz, command ${config.slack.slashCommand}`);

  return {
    port,
    services,
    changes,
    store,
    scheduler,
    simulator,
    reconciledAtStart,
    reloadPolicy: () => rules.reload(),
    async stop() {
      accepting = false;
      clearInterval(reconcileTimer);
      await reconciledAtStart;
      const drained = Promise.all([changes.drain(), scheduler.stop()]);
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, DRAIN_LIMIT_MS).unref())]);
      await slack.stop().catch((error: unknown) => logger.warn(`stopping the Slack receiver: ${String(error)}`));
      await stores.close();
      await cloud.close();
      await simulator?.close();
    },
  };
}

async function connectCloud(config: Config, logger: BotLogger, tuning: Partial<CloudClientOptions> = {}) {
  const common = { cacheSeconds: config.clickhouse.cacheSeconds, timeoutMs: config.clickhouse.timeoutMs, logger, ...tuning };
  if (config.clickhouse.mode === 'live') {
    const { apiUrl, keyId, keySecret, orgId } = config.clickhouse;
    logger.addSecrets(keySecret, Buffer.from(`${keyId}:${keySecret}`).toString('base64'));
    return { cloud: new CloudClient({ baseUrl: apiUrl, keyId, keySecret, orgId, ...common }), simulator: undefined };
  }
  const simulator = await CloudSimulator.start({ keyId: DEMO_KEY_ID, keySecret: DEMO_KEY_SECRET, orgId: DEMO_ORG_ID, services: demoServices() });
  logger.warn(
    `DEMO MODE: CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET are not set, so the bot manages a simulated organization (${simulator.url}), not ClickHouse Cloud.`,
  );
  return {
    cloud: new CloudClient({ baseUrl: simulator.url, keyId: DEMO_KEY_ID, keySecret: DEMO_KEY_SECRET, orgId: DEMO_ORG_ID, ...common }),
    simulator,
  };
}

/** The URL without its credentials (nor a query string, which could hold some), for logs. */
function redactedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

/** Where the bot keeps its data, for the log at start: addresses and database, never credentials. */
function redisMode(config: Config): string {
  const { redisUrl, redisSentinel } = config;
  if (redisSentinel) {
    const nodes = redisSentinel.sentinels.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`).join(', ');
    const db = redisUrl ? new URL(redisUrl).pathname.replace(/^\//, '') : '';
    return `Redis Sentinel: master group "${redisSentinel.name}" through the Sentinels at ${nodes}${db && db !== '0' ? `, database ${db}` : ''}`;
  }
  if (!redisUrl) return 'no Redis';
  if (config.redisCluster) return `Redis Cluster: discovering the nodes from ${redactedUrl(redisUrl)}`;
  return `Redis: a single server at ${redactedUrl(redisUrl)}`;
}

/**
 * One Redis connection (a node, the master named by Sentinel, or a Cluster) serves both stores;
 * tests may bring their own stores.
 */
function openStores(config: Config, logger: BotLogger, overrides: BotOverrides) {
  let redis: ReturnType<typeof connectRedis> | undefined;
  const configured = config.redisUrl !== undefined || config.redisSentinel !== undefined;
  const connection = () => {
    if (!configured) return undefined;
    if (!redis) {
      if (config.redisUrl) logger.addSecrets(decodeURIComponent(new URL(config.redisUrl).password));
      redis = connectRedis(config.redisUrl, { cluster: config.redisCluster, ...(config.redisSentinel ? { sentinel: config.redisSentinel } : {}) });
      redis.on('error', (error: Error) => logger.error(`Redis: ${error.message}`));
      logger.info(redisMode(config));
    }
    return redis;
  };
  if (!configured && !(overrides.store && overrides.scheduleStore)) {
    logger.warn('IN-MEMORY STORE: REDIS_URL is not set, so change requests and schedules live in this process only and are lost on restart. Set REDIS_URL for production.');
  }
  const shared = overrides.store && overrides.scheduleStore ? undefined : connection();
  const store: ChangeStore = overrides.store ?? (shared ? new RedisChangeStore(shared) : new MemoryChangeStore());
  const schedules: ScheduleStore = overrides.scheduleStore ?? (shared ? new RedisScheduleStore(shared) : new MemoryScheduleStore());
  return {
    store,
    schedules,
    async close() {
      await store.close();
      await schedules.close();
      if (redis) await closeQuietly(redis);
    },
  };
}
