/**
 * The composition root, in the order things depend on each other: build the adapters (Cloud,
 * stores, the Slack app and its messenger), build the services on top of them, register the
 * listeners, start. main.ts calls it for production; tests call it with their own config (fake
 * Slack, simulator, real Redis) so they run the very same wiring.
 */
import type { App } from '@slack/bolt';
import { secretsKeyBytes } from './store/secret-cipher.js';
import { dropSealedOnceSettled, SecretDelivery } from './secrets/delivery.js';
import type { SecretVault } from './ports/secret-vault.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ApprovalFlow } from './approval/approval-flow.js';
import { ApproverPolicy } from './approval/approvers.js';
import { Follower } from './approval/follower.js';
import { PolicyFile, type ReloadResult } from './approval/policy-file.js';
import { startReconciler } from './approval/reconciler.js';
import { ApproverDms } from './approval/approver-dms.js';
import { HomeTabs } from './approval/home.js';
import { Nudger } from './approval/nudger.js';
import { BOT_ACTOR, startTemporaryTicks, TemporaryChanges } from './approval/temporary-changes.js';
import { startTicks } from './scheduler/ticks.js';
import { timeZoneResolver } from './commands/time-zone.js';
import { AuditDelivery } from './audit/delivery.js';
import { fileSink } from './audit-sinks/file.js';
import { webhookSink } from './audit-sinks/webhook.js';
import { policyReloadFields, type AuditSinkSpec } from './core/audit/export.js';
import { channelGuardrails } from './approval/channel-guardrails.js';
import { CloudClient, type CloudClientOptions, type CloudObserver } from './cloud/client.js';
import {
  DEFAULT_ORGANIZATION,
  Organizations,
  type OrganizationKey,
  type OrganizationsReload,
} from './cloud/organizations.js';
import type { BotServices } from './commands/context.js';
import type { Config } from './config.js';
import { DEFAULT_FOLLOW, type FollowSchedule } from './core/capacity/follow.js';
import { messageOf } from './core/render/errors.js';
import { metricsRoute, startOpsServer, type OpsServer } from './http/ops-routes.js';
import { createLogger, quietWhile, type BotLogger } from './log.js';
import { CloudKeyStatus, type KeyIdentity, type KeyState } from './cloud/key-check.js';
import { createMetrics, type BotMetrics } from './metrics.js';
import {
  auditObserver,
  changeObserver,
  cloudObserver,
  commandLabel,
  countedSummaries,
  countReadyAnswers,
  countSlackApiError,
  countSlackRetry,
  followObserver,
} from './observe.js';
import type {
  AuditOutbox,
  AuditSink,
  ChangeStore,
  Log,
  Messenger,
  Modals,
  ScheduleStore,
  CostDayStore,
  ServiceDirectory,
} from './ports/index.js';
import { scheduleSnapshotKey } from './core/schedule/types.js';
import { Scheduler } from './scheduler/scheduler.js';
import { CloudSimulator } from './simulator/server.js';
import { DEMO_KEY_ID, DEMO_KEY_SECRET, DEMO_ORG_ID, demoServices } from './simulator/seed.js';
import { boltModals, createSlackApp } from './slack/app.js';
import { ReadyAnswers } from './slack/ack-thread/ready-answers.js';
import { registerListeners } from './slack/listeners/index.js';
import { metadataSeal } from './slack/sealed-metadata.js';
import { slackMessenger } from './slack/messenger.js';
import { pacedMessenger } from './slack/pacing.js';
import { openStores, type Stores } from './store/open.js';
import { Summaries } from './summary/summaries.js';
import { CostLedger } from './cost/ledger.js';
import { ChartPoster } from './cost/chart-poster.js';
import { CostAlerts } from './cost/alerts.js';
import { echartsRenderer } from './chart/echarts.js';

export interface BotHandle {
  /** The HTTP port bound (Slack requests and the probes; in Socket Mode the probes only). */
  port: number;
  /** Where /metrics is served when METRICS_PORT is set. */
  metricsPort: number | undefined;
  metrics: BotMetrics | undefined;
  /** In Socket Mode, whether the connection to Slack is open now. */
  socketOpen: (() => boolean) | undefined;
  services: BotServices;
  changeRequests: ApprovalFlow;
  temporary: TemporaryChanges;
  /** Follows stops, starts, wakes and scalings after the API accepted them. */
  follower: Follower;
  /** Redraws Home tabs in the background; `idle()` settles once every queued redraw is done. */
  homes: Pick<HomeTabs, 'idle'>;
  changeStore: ChangeStore;
  scheduler: Scheduler;
  /** The embedded simulator in demo mode. */
  simulator: CloudSimulator | undefined;
  /** Settles when requests abandoned in "applying" by a dead replica have been reconciled. */
  reconciledAtStart: Promise<number>;
  /** Settles when reverts that fell due while the bot was down have been looked at once. */
  revertedAtStart: Promise<void>;
  /** Settles when the first look for due scheduled changes (what fell due while every replica was down) is done. */
  scheduledAtStart: Promise<void>;
  /** Settles when COST_ALERTS has looked at yesterday's spend once (at once without COST_ALERTS). */
  costAlertsLookedAtStart: Promise<void>;
  /** Re-reads POLICY_FILE (SIGHUP); a bad file keeps the rules in force and is logged. */
  reloadPolicy(): Promise<ReloadResult>;
  /** Re-reads ORGANIZATIONS_FILE (SIGHUP); a bad file keeps the organizations in force and logs every problem. */
  reloadOrganizations(): Promise<OrganizationsReload>;
  /** The organizations and the clients serving them. */
  organizations: Organizations;
  /** Whether ClickHouse Cloud accepts the API key, now. */
  cloudKey: () => KeyState;
  /** Settles with the verdict of the key check made at start. */
  cloudKeyChecked: Promise<KeyState>;
  /** Graceful stop: refuse new work, let approvals in flight finish, close connections. */
  stop(): Promise<void>;
}

export interface BotOverrides {
  logger?: BotLogger;
  /** Client tuning for tests (retry timings, throttle). */
  cloudClient?: Partial<CloudClientOptions>;
  /** Use this store instead of the one the config names. */
  changeStore?: ChangeStore;
  /** The approval flow's clock (tests move it past a request's expiry). */
  clock?: () => number;
  /** Use this schedule store instead of the one the config names. */
  scheduleStore?: ScheduleStore;
  /** Use this cost store (usage cost days, alert claims) instead of the one the config names. */
  costStore?: CostDayStore;
  /** Secrets waiting to be revealed (tests give each bot its own Redis key prefix). */
  secretVault?: SecretVault;
  /** Spacing of posts to one channel (Slack allows about one a second). */
  channelPostIntervalMs?: number;
  /** Posts a quiet channel takes at once before the spacing applies. */
  channelPostBurst?: number;
  /** How often schedules are re-read from the store. */
  scheduleSyncMs?: number;
  /** Pauses between re-reads when an update's outcome is unknown. */
  recheckDelaysMs?: number[];
  /** The follow schedule after the API accepted a stop or a scaling (its total is FOLLOW_MINUTES unless given). */
  followSchedule?: Partial<FollowSchedule>;
  /** How often due reverts and reminders of temporary changes are looked for (default a quarter lease). */
  temporaryTickMs?: number;
  /** How often waiting requests are looked at for reminders and escalation (default 30 s). */
  nudgeTickMs?: number;
  /** Audit export (AUDIT_SINKS): how often new events are looked for, and the first retry's wait (tests shorten them). */
  auditPollMs?: number;
  auditRetryBaseMs?: number;
  /** How often COST_ALERTS looks at yesterday's spend (default an hour). */
  costAlertTickMs?: number;
  /** How long a summary waits for its spend section before posting without it (default 5 s). */
  summarySpendWaitMs?: number;
  /** How long a summary waits for the organization's keys before posting its keys line as not read (default 5 s). */
  summaryKeysWaitMs?: number;
  /** false: summaries without a spend section (tests of huge organizations whose spend is beside the point). */
  summarySpend?: boolean;
  /** Interface the HTTP receiver listens on; every interface unless given (the playground: loopback). */
  host?: string;
  /** Process metrics (CPU, memory, GC): off in tests, where many bots share a process. */
  processMetrics?: boolean;
  /** Socket Mode's reconnect pause is this times the failures in a row (tests shorten it). */
  socketClientPingTimeoutMs?: number;
  /**
   * Check the API key at start with one read of the organization (default true). Tests that count
   * API requests or arm faults for the first one turn it off.
   */
  checkCloudKey?: boolean;
  /** Where ORGANIZATIONS_FILE's key_id_env and key_secret_env are looked up (default process.env). */
  environment?: Readonly<Record<string, string | undefined>>;
  /**
   * Listeners registered after the bot's own, behind the same middleware (tests: a kind of
   * listener no feature has yet, such as an external select's options, proved end to end).
   */
  extraListeners?: (app: App, services: BotServices) => void;
}

const DRAIN_LIMIT_MS = 8_000;
/**
 * Slack allows short bursts above a channel's one post a second: a request message, its approval's
 * record and a reminder never wait for one another. A summary's posts keep to the second.
 */
const CHANNEL_POST_BURST = 3;
/** Reminders and escalations are due on whole minutes at best: a look every 30 s is on time enough. */
const NUDGE_TICK_MS = 30_000;
/** Spend is reported per day and unlocked days are read at most hourly: an hourly look is enough. */
const COST_ALERT_TICK_MS = 3_600_000;

export async function startBot(config: Config, overrides: BotOverrides = {}): Promise<BotHandle> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel, format: config.logFormat });
  logger.addSecrets(
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.metrics.enabled ? config.metrics.token : undefined,
    config.auditExport.webhookSecret,
    config.secretsKey,
  );

  // First: a bad policy file stops the bot before it opens any connection (a bad ORGANIZATIONS_FILE
  // too: it is read before any client is made).
  const rules = await PolicyFile.open(config.approvals.policyFile, logger);

  // 1. Adapters; metrics first, as the others report to them (the gauges read the store and the
  // client at scrape time, when both exist).
  const metrics = config.metrics.enabled
    ? createMetrics({
        processDefaults: overrides.processMetrics ?? true,
        countPending: () => stores.changeStore.countPending(Date.now()),
        throttleQueue: () => organizations.clients().reduce((sum, client) => sum + client.throttleQueueLength, 0),
        cloudKeyState: () => cloudKey().state,
        cloudKeyStates: () => cloudKeys(),
      })
    : undefined;
  const countRequest = metrics ? cloudObserver(metrics) : undefined;
  // Each organization's key is checked and watched on its own (a reload with a new key starts
  // afresh); the metric and /readyz's clickhouseKey speak for the default one, /readyz lists all.
  const keyStatuses = new Map<string, CloudKeyStatus>();
  const keyStatusOf = (organization: string): CloudKeyStatus => {
    let status = keyStatuses.get(organization);
    if (!status) {
      status = new CloudKeyStatus(keyIdentity(config, keys.get(organization)), logger);
      keyStatuses.set(organization, status);
    }
    return status;
  };
  const cloudKey = () => keyStatusOf(organizations.defaultOrganization());
  const cloudKeys = () => Object.fromEntries(organizations.names().map((name) => [name, keyStatusOf(name).state]));
  // Every organization's requests are counted. Each client speaks for its own key only: one a
  // reload replaced (its old key) may still be answered, and must not judge the new key.
  const observing = (organization: string, key: OrganizationKey | undefined): CloudObserver => {
    const keyStatus = new CloudKeyStatus(keyIdentity(config, key), logger);
    keyStatuses.set(organization, keyStatus);
    return {
      request(method, status, seconds, reads) {
        countRequest?.request(method, status, seconds);
        // A key refused usage costs (no billing permission) still manages services: not "refused".
        const refusedCosts = reads === 'costs' && status === 403;
        if (!refusedCosts) keyStatus.observe(status);
      },
    };
  };
  // Answers the acknowledging thread gives again by itself; every cached read that changes outdates them.
  const readyAnswers = new ReadyAnswers();
  const outdateReadyAnswers = () => readyAnswers.outdate();
  const connected =
    config.organizations.file === undefined
      ? await connectCloud(config, logger, {
          ...overrides.cloudClient,
          observer: observing(DEFAULT_ORGANIZATION, undefined),
          onCacheChange: outdateReadyAnswers,
        })
      : undefined;
  const keys = new Map<string, OrganizationKey>();
  // Set once the middle layer has built them: the spend sections of the first organization's summaries.
  const spendOfFirst: { current?: Pick<SummariesSpend, 'costs' | 'spendCharts' | 'spendWaitMs'> } = {};
  const keysWait = overrides.summaryKeysWaitMs === undefined ? {} : { keysWaitMs: overrides.summaryKeysWaitMs };
  const organizations = await Organizations.open({
    path: config.organizations.file,
    env: overrides.environment ?? process.env,
    logger,
    fallback: () => {
      if (!connected) throw new Error('no ClickHouse Cloud client for the environment');
      return connected.cloud;
    },
    connect: (key) => {
      keys.set(key.name, key);
      return organizationClient(config, logger, key, {
        ...overrides.cloudClient,
        observer: observing(key.name, key),
        onCacheChange: outdateReadyAnswers,
      });
    },
    // Summaries read through the channel's view of its organization, counted like the others; the
    // first organization's end with the spend of what the channel sees (spend is read for it only).
    summaries: (directory, binding) =>
      summariesOver(
        directory,
        { stores, messenger, logger, metrics },
        {
          ...(config.consoleUrl === undefined ? {} : { consoleUrl: config.consoleUrl }),
          ...(spendOfFirst.current && binding.organization === organizations.defaultOrganization()
            ? { ...spendOfFirst.current, spendOfListedOnly: binding.rules.services !== undefined }
            : {}),
        },
        {
          // The keys line shows what `keys` would: not in a channel whose guardrails leave that command out.
          showKeys: binding.rules.allow === undefined || binding.rules.allow.includes('keys'),
          ...keysWait,
        },
      ),
  });
  const simulator = connected?.simulator;
  const cloud = organizations.clientOf(undefined);
  const stores = openStores({
    redis: { url: config.redisUrl, cluster: config.redisCluster, sentinel: config.redisSentinel },
    logger,
    changeStore: overrides.changeStore,
    scheduleStore: overrides.scheduleStore,
    costStore: overrides.costStore,
    auditRetentionDays: config.auditRetentionDays,
    secretsKey: config.secretsKey === undefined ? undefined : secretsKeyBytes(config.secretsKey),
    secretVault: overrides.secretVault,
  });
  // Loops that run on their own stay quiet while the store is down: its outage is logged once a minute.
  const background = quietWhile(logger, () => stores.down());
  const metricsOwnPort = config.metrics.enabled ? config.metrics.port : undefined;
  const metricsToken = config.metrics.enabled ? config.metrics.token : undefined;
  const slack = createSlackApp({
    ...config.slack,
    host: overrides.host ?? config.slack.host,
    metricsToken,
    logger,
    storeAnswers: () => stores.changeStore.ping(),
    cloudKey: () => cloudKey().state,
    cloudKeys,
    metrics: metricsOwnPort === undefined ? metrics?.registry : undefined,
    ...(metrics ? { onAck: (seconds: number) => metrics.ackSeconds.observe(seconds) } : {}),
    readyAnswers,
    ...(metrics ? { onReadyAnswers: countReadyAnswers(metrics) } : {}),
    ...(overrides.socketClientPingTimeoutMs ? { socketClientPingTimeoutMs: overrides.socketClientPingTimeoutMs } : {}),
  });
  const onSlackApiError = metrics ? countSlackApiError(metrics) : undefined;
  const messenger = pacedMessenger(slackMessenger(slack.app.client, onSlackApiError), {
    intervalMs: overrides.channelPostIntervalMs ?? 1_000,
    burst: overrides.channelPostBurst ?? CHANNEL_POST_BURST,
    ...(metrics ? { onRetry: countSlackRetry(metrics) } : {}),
  });

  // 2. Services.
  const formSeal = metadataSeal(config.slack.botToken);
  const { services, changeRequests, temporary, follower, scheduler, nudger, homes, costAlerts } = buildServices(
    config,
    overrides,
    {
      cloud,
      organizations,
      stores,
      messenger,
      modals: boltModals(slack.app, formSeal, onSlackApiError),
      logger,
      metrics,
      rules,
    },
  );
  spendOfFirst.current =
    overrides.summarySpend === false
      ? {}
      : {
          costs: services.costs,
          spendCharts: services.spendCharts,
          ...(overrides.summarySpendWaitMs === undefined ? {} : { spendWaitMs: overrides.summarySpendWaitMs }),
        };

  // 3. Listeners.
  let accepting = true;
  registerListeners(slack.app, {
    services,
    messenger,
    homes,
    formSeal,
    accepting: () => accepting,
    ...(metrics ? { onCommand: (command) => metrics.commands.inc({ command: commandLabel(command) }) } : {}),
    readyAnswerOffer: (key, command) =>
      readyAnswers.askedBefore(key) ? readyAnswers.offerFor(key, commandLabel(command)) : undefined,
  });

  overrides.extraListeners?.(slack.app, services);

  // 4. Start.
  let port: number;
  let metricsServer: OpsServer | undefined;
  try {
    port = await slack.start();
    metricsServer =
      metrics && metricsOwnPort !== undefined
        ? await startOpsServer(
            metricsOwnPort,
            [metricsRoute(metrics.registry, metricsToken)],
            config.metrics.enabled ? config.metrics.host : undefined,
          )
        : undefined;
    // The first read of the store: a Redis that does not answer is said in a sentence here.
    await scheduler.start();
  } catch (error) {
    // Leave nothing listening or connecting behind a start that failed.
    await slack.stop().catch(() => undefined);
    await metricsServer?.close().catch(() => undefined);
    await stores.close().catch(() => undefined);
    await organizations.close();
    await simulator?.close();
    throw stores.explainStartFailure(error);
  }
  const outbox = stores.changeStore.auditOutbox();
  const auditDeliveries = startAuditExport(config, outbox, background, metrics, overrides, (name) =>
    organizations.idOf(name),
  );
  const reconciler = startReconciler(changeRequests, {
    everyMs: config.approvals.leaseMs / 4,
    logger: background,
  });
  const temporaryTicks = startTemporaryTicks(
    temporary,
    overrides.temporaryTickMs ?? config.approvals.leaseMs / 4,
    background,
  );
  // Temporary changes of an organization the file no longer has cannot be reverted: said at start and after each reload.
  const warnUnrevertable = () =>
    temporary
      .warnUnrevertable((organization) => organizations.has(organization))
      // Quiet while the store is down, as every background loop: its outage is logged on its own.
      .catch((error: unknown) => background.warn(`checking the temporary changes' organizations: ${messageOf(error)}`));
  void warnUnrevertable();
  // Scheduled changes whose time came (or came while every replica was down): as often as reverts.
  const scheduledTicks = startTicks(
    'scheduled changes that are due',
    async () => {
      await changeRequests.startDueScheduled(BOT_ACTOR, config.scheduling.graceMs);
    },
    overrides.temporaryTickMs ?? config.approvals.leaseMs / 4,
    background,
  );
  const nudgeTicks = startTicks(
    'waiting requests to expire, remind or escalate',
    async () => {
      await changeRequests.expireOverdue(BOT_ACTOR);
      await nudger.tick();
    },
    overrides.nudgeTickMs ?? NUDGE_TICK_MS,
    background,
  );
  const costAlertTicks = costAlerts
    ? startTicks(
        'services whose spend jumped',
        () => costAlerts.look().then(() => undefined),
        overrides.costAlertTickMs ?? COST_ALERT_TICK_MS,
        background,
      )
    : undefined;
  // One read of each organization: a wrong key or organization is said in a sentence now, not at
  // the first command. Not awaited: an API that is slow to answer must not hold the start.
  const checkKeys = (names: string[], person: string) =>
    Promise.all(
      names.map((name) => keyStatusOf(name).check(() => organizations.clientOf(name).listServices([], { person }))),
    );
  const cloudKeyChecked =
    overrides.checkCloudKey === false
      ? Promise.resolve(cloudKey().state)
      : checkKeys(organizations.names(), 'the start check').then(() => cloudKey().state);
  const where = (host: string | undefined, at: number) => `port ${at} of ${host ?? 'every interface'}`;
  const mainAt = where(overrides.host ?? config.slack.host, port);
  const metricsAt = !config.metrics.enabled
    ? 'metrics off'
    : `metrics at /metrics on ${metricsServer ? where(config.metrics.host, metricsServer.port) : mainAt}${metricsToken ? ' (bearer token required)' : ''}`;
  logger.info(
    `bot listening: ${config.slack.appToken ? `Socket Mode, probes on ${mainAt}` : `HTTP on ${mainAt} (POST /slack/events)`}, probes at /livez /readyz /healthz, ${metricsAt}, command ${config.slack.slashCommand}`,
  );

  return {
    port,
    metricsPort: metricsServer?.port,
    metrics,
    socketOpen: slack.socketOpen,
    services,
    changeRequests,
    temporary,
    follower,
    homes,
    changeStore: stores.changeStore,
    scheduler,
    simulator,
    reconciledAtStart: reconciler.settledAtStart,
    revertedAtStart: temporaryTicks.firstPass,
    scheduledAtStart: scheduledTicks.firstPass,
    async reloadPolicy() {
      const result = await rules.reload();
      await recordPolicyReload(outbox, rules.path, result).catch((error: unknown) =>
        logger.warn(`the policy reload could not be written to the audit trail: ${messageOf(error)}`),
      );
      for (const delivery of auditDeliveries) delivery.nudge();
      return result;
    },
    reloadOrganizations: async () => {
      const reloaded = await organizations.reload();
      if (!reloaded.ok) return reloaded;
      // A channel's organization, services or allowed commands may have changed.
      readyAnswers.outdate();
      await warnUnrevertable();
      // A key new to this reload (an organization added, a key changed) is checked as at start,
      // not first at someone's command; not awaited, as at start.
      if (overrides.checkCloudKey !== false) {
        const fresh = organizations.names().filter((name) => keyStatusOf(name).state === 'unchecked');
        void checkKeys(fresh, 'the reload check');
      }
      return reloaded;
    },
    organizations,
    costAlertsLookedAtStart: costAlertTicks?.firstPass ?? Promise.resolve(),
    cloudKey: () => cloudKey().state,
    cloudKeyChecked,
    async stop() {
      accepting = false;
      // Draining: commands get the restart sentence, not an answer the thread kept.
      readyAnswers.outdate();
      await reconciler.stop();
      await temporaryTicks.stop();
      await scheduledTicks.stop();
      await nudgeTicks.stop();
      await costAlertTicks?.stop();
      // Following ends at once (a sleeping follow wakes and returns); approvals in flight finish.
      const drained = Promise.all([changeRequests.drain(), scheduler.stop(), follower.stop()]).then(() => homes.idle());
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, DRAIN_LIMIT_MS).unref())]);
      await slack.stop().catch((error: unknown) => logger.warn(`stopping the Slack receiver: ${messageOf(error)}`));
      await metricsServer?.close();
      await Promise.all(auditDeliveries.map((delivery) => delivery.stop()));
      await stores.close();
      await organizations.close();
      await simulator?.close();
    },
  };
}

/** One delivery worker per AUDIT_SINKS entry, each taking its turn (lease) among the replicas. */
function startAuditExport(
  config: Config,
  outbox: AuditOutbox,
  log: Log,
  metrics: BotMetrics | undefined,
  overrides: BotOverrides,
  organizationIdOf: (name: string) => string | undefined,
): AuditDelivery[] {
  const { sinks, outboxMax } = config.auditExport;
  metrics?.auditOutboxMax.set(outboxMax);
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const organizationId = config.clickhouse.mode === 'live' ? config.clickhouse.orgId : DEMO_ORG_ID;
  return sinks.map((spec) => {
    const delivery = new AuditDelivery({
      outbox,
      sink: auditSinkOf(spec, config),
      sinkKey: spec.key,
      owner,
      organizationId,
      organizationIdOf,
      outboxMax,
      log,
      ...(metrics ? { observe: auditObserver(metrics) } : {}),
      ...(overrides.auditPollMs === undefined ? {} : { pollMs: overrides.auditPollMs }),
      ...(overrides.auditRetryBaseMs === undefined ? {} : { retryBaseMs: overrides.auditRetryBaseMs }),
    });
    delivery.start();
    return delivery;
  });
}

function auditSinkOf(spec: AuditSinkSpec, config: Config): AuditSink {
  const { fileMaxBytes, fileKeep, webhookSecret } = config.auditExport;
  if (spec.kind === 'file')
    return fileSink({ path: spec.path, label: spec.label, maxBytes: fileMaxBytes, keep: fileKeep });
  // The config refuses a webhook without a secret.
  return webhookSink({ url: spec.url, label: spec.label, secret: webhookSecret ?? '' });
}

/** A reload (or a refused one) is an audit event like any other: who changes the rules matters. */
async function recordPolicyReload(outbox: AuditOutbox, path: string | undefined, result: ReloadResult): Promise<void> {
  await outbox.record(
    policyReloadFields({
      at: Date.now(),
      path,
      ...(result.ok
        ? { result: result.changed ? 'reloaded' : 'unchanged', digest: result.policy?.digest }
        : { result: 'refused', problems: result.problems }),
    }),
  );
}

interface Adapters {
  /** The default organization's client. */
  cloud: CloudClient;
  organizations: Organizations;
  stores: Stores;
  messenger: Messenger;
  modals: Modals;
  logger: BotLogger;
  metrics: BotMetrics | undefined;
  /** The approval rules in force (POLICY_FILE), reloaded on SIGHUP. */
  rules: PolicyFile;
}

/** The middle layer: approvals, summaries and schedules, on top of the adapters. */
function buildServices(
  config: Config,
  overrides: BotOverrides,
  { cloud, organizations, stores, messenger, modals, logger, metrics, rules }: Adapters,
) {
  // Each request reads and changes its own organization (ORGANIZATIONS_FILE); the default one otherwise.
  const cloudOf = (organization: string | undefined) => organizations.directoryOf(organization);
  const organizationsFromFile = config.organizations.file !== undefined;
  const { changeStore, scheduleStore } = stores;
  const approvalRules = {
    current: () => rules.current(),
    defaults: { approvers: config.approvals.approvers, allowSelfApproval: config.approvals.allowSelfApproval },
  };
  const policy = new ApproverPolicy({
    ...approvalRules.defaults,
    messenger,
    policy: approvalRules.current,
    ...(overrides.clock ? { now: overrides.clock } : {}),
  });
  // Both speak to people about waiting requests, from the store, on the bot's clock.
  const telling = {
    store: changeStore,
    messenger,
    defaults: approvalRules.defaults,
    logger,
    now: overrides.clock ?? Date.now,
  };
  const consoleUrl = config.consoleUrl === undefined ? {} : { consoleUrl: config.consoleUrl };
  const approverDms = new ApproverDms({ ...telling, ...consoleUrl });
  // Home tabs are refreshed when a request that concerns someone moves, in the background.
  const homes = new HomeTabs({ store: changeStore, messenger, policy, logger, now: overrides.clock ?? Date.now });
  const nudger = new Nudger({
    ...telling,
    dms: {
      reminded: (request, message) => approverDms.reminded(request, message),
      // An escalation (said once across replicas) adds people who may approve: their Homes show it.
      escalated: (request, requirement) => {
        homes.moved(request);
        return approverDms.escalated(request, requirement);
      },
    },
  });
  const follower = new Follower({
    cloud,
    cloudOf,
    messenger,
    logger,
    slashCommand: config.slack.slashCommand,
    ...consoleUrl,
    schedule: { ...DEFAULT_FOLLOW, totalMs: config.followMs, ...overrides.followSchedule },
    ...(metrics ? { observe: followObserver(metrics) } : {}),
  });
  const observeChange = changeObserver(logger, metrics);
  const secrets = new SecretDelivery({
    vault: stores.secretVault,
    messenger,
    logger,
    now: overrides.clock ?? Date.now,
  });
  const changeRequests = new ApprovalFlow({
    cloud,
    cloudOf,
    store: changeStore,
    messenger,
    // A request is held to its channel's guardrails as they are when it is approved.
    policy: organizationsFromFile ? channelGuardrails(policy, organizations, changeStore) : policy,
    ttlMs: config.approvals.changeTtlSeconds * 1000,
    leaseMs: config.approvals.leaseMs,
    ...(config.approvals.securityChannel ? { securityChannel: config.approvals.securityChannel } : {}),
    updateTimeoutMs: config.clickhouse.timeoutMs,
    logger,
    ...consoleUrl,
    ...(overrides.clock ? { now: overrides.clock } : {}),
    ...(overrides.recheckDelaysMs ? { recheckDelaysMs: overrides.recheckDelaysMs } : {}),
    observe: observeChange,
    deliverSecret: (secret) => secrets.deliver(secret),
    takeSecret: (id, ownerId) => secrets.take(id, ownerId),
    // The request as the flow has it (who it concerns never changes): no read to find its people.
    moved: (request) => {
      homes.moved(request);
      // What a settled request kept sealed (a with-hash reset's hashes) is dropped now.
      void dropSealedOnceSettled(secrets, request);
    },
    afterApproval: (request) => homes.moved(request),
    ...(metrics ? { onMissingRecord: () => metrics.revertRecordsMissing.inc() } : {}),
    afterFiled: (request) => {
      homes.moved(request);
      return approverDms.filed(request);
    },
    afterSettled: async (request): Promise<void> => {
      // Not awaited: following takes minutes, and neither the click's answer nor the temporary
      // follow-up (the revert's schedule in the thread) may wait for it. It never rejects.
      void follower.follow(request);
      try {
        await temporary.afterSettled(request);
      } finally {
        // A revert settled (and forgotten above): the original's requester loses a temporary change.
        if (request.revertOf) homes.moved(request.revertOf);
      }
    },
  });
  const temporary: TemporaryChanges = new TemporaryChanges({
    flow: changeRequests,
    store: changeStore,
    messenger,
    logger,
    now: overrides.clock ?? Date.now,
  });
  // Spend is the first organization's, as it is now (a reload may put another first, or give it a
  // new key). The cached days carry its id, so a changed CLICKHOUSE_ORG_ID (or first organization
  // of the file) never shows the old one's spend.
  const environmentOrgId = config.clickhouse.mode === 'live' ? config.clickhouse.orgId : DEMO_ORG_ID;
  const costs = new CostLedger({
    api: {
      usageCost: (range, filters, options) => organizations.clientOf(undefined).usageCost(range, filters, options),
    },
    store: stores.costStore,
    organizationId: () =>
      organizationsFromFile ? organizations.idOf(organizations.defaultOrganization()) : environmentOrgId,
  });
  const spendCharts = new ChartPoster({ charts: echartsRenderer, messenger, logger });
  const summaries = countedSummaries(
    new Summaries({
      cloud,
      audit: changeStore,
      snapshots: scheduleStore,
      messenger,
      logger,
      ...consoleUrl,
      ...(overrides.summaryKeysWaitMs === undefined ? {} : { keysWaitMs: overrides.summaryKeysWaitMs }),
      ...(overrides.summarySpend === false
        ? {}
        : {
            costs,
            spendCharts,
            ...(overrides.summarySpendWaitMs === undefined ? {} : { spendWaitMs: overrides.summarySpendWaitMs }),
          }),
    }),
    metrics,
  );
  const scheduler = new Scheduler({
    store: scheduleStore,
    logger: quietWhile(logger, () => stores.down()),
    ...(overrides.scheduleSyncMs ? { syncIntervalMs: overrides.scheduleSyncMs } : {}),
    run: async (schedule) => {
      // A schedule belongs to its channel's organization and sees what the channel sees.
      const scope = organizationsFromFile ? organizations.scope(schedule.channelId) : { summaries };
      if (!scope) {
        logger.warn(
          `schedule ${schedule.id}: channel ${schedule.channelId} is bound to no organization in ORGANIZATIONS_FILE; not posted`,
        );
        return;
      }
      await scope.summaries.post({
        channelId: schedule.channelId,
        filters: schedule.filters,
        snapshotKey: scheduleSnapshotKey(schedule.id),
        title: 'Scheduled ClickHouse Cloud summary',
        scheduled: true,
        reader: `schedule:${schedule.id}`,
        ...(schedule.chart ? { chart: true } : {}),
      });
    },
  });
  const services: BotServices = {
    cloud,
    changeStore,
    changeRequests,
    temporary,
    temporaryMaxMs: config.approvals.temporaryMaxMs,
    ...consoleUrl,
    changeTtlMs: config.approvals.changeTtlSeconds * 1000,
    approvalRules,
    modals,
    scheduleStore,
    scheduler,
    summaries,
    summaryTimeZone: config.summaryTimeZone,
    scheduleLimits: config.schedules,
    auditRetentionDays: config.auditRetentionDays,
    logger,
    slashCommand: config.slack.slashCommand,
    timeZoneOf: timeZoneResolver(config.scheduling.channelTimeZones, messenger, logger),
    now: overrides.clock ?? Date.now,
    ...(organizationsFromFile ? { tenants: organizations } : {}),
    messenger,
    costs,
    spendCharts,
    secrets,
  };
  const costAlerts = config.costAlerts
    ? new CostAlerts({
        costs,
        claims: stores.costStore,
        messenger,
        channelId: config.costAlerts.channelId,
        rules: { aboveChc: config.costAlerts.aboveChc, factor: config.costAlerts.factor },
        slashCommand: config.slack.slashCommand,
        logger,
        ...(organizationsFromFile
          ? {
              visibleServices: () => firstOrganizationServicesSeenBy(organizations, config.costAlerts?.channelId ?? ''),
            }
          : {}),
      })
    : undefined;
  return { services, changeRequests, temporary, follower, scheduler, nudger, homes, costAlerts };
}

/**
 * The first organization's services a channel sees (spend is read for it only): none in a channel
 * bound to another organization or to none, only its own in a channel with `services` rules.
 */
async function firstOrganizationServicesSeenBy(
  tenants: Organizations,
  channelId: string,
): Promise<ReadonlySet<string> | undefined> {
  const scope = tenants.scope(channelId);
  if (!scope || scope.organization !== tenants.defaultOrganization()) return new Set();
  if (!scope.rules.services) return undefined;
  const list = await scope.directory.listServices([], { person: 'cost alerts' });
  return new Set(list.services.map((service) => service.id));
}

type SummariesKeys = Pick<ConstructorParameters<typeof Summaries>[0], 'showKeys' | 'keysWaitMs'>;

type SummariesSpend = Pick<
  ConstructorParameters<typeof Summaries>[0],
  'costs' | 'spendCharts' | 'spendWaitMs' | 'spendOfListedOnly' | 'consoleUrl'
>;

/** Summaries of the organization behind this directory (a channel's view of it), counted in the metrics. */
function summariesOver(
  cloud: ServiceDirectory,
  { stores, messenger, logger, metrics }: Pick<Adapters, 'stores' | 'messenger' | 'logger' | 'metrics'>,
  spend: SummariesSpend = {},
  keys: SummariesKeys = {},
) {
  const { changeStore: audit, scheduleStore: snapshots } = stores;
  return countedSummaries(new Summaries({ cloud, audit, snapshots, messenger, logger, ...keys, ...spend }), metrics);
}

function keyIdentity(config: Config, key: OrganizationKey | undefined): KeyIdentity {
  if (key) return { keyId: key.keyId, orgId: key.orgId, demo: false, organization: key.name };
  return config.clickhouse.mode === 'live'
    ? { keyId: config.clickhouse.keyId, orgId: config.clickhouse.orgId, demo: false }
    : { keyId: DEMO_KEY_ID, orgId: DEMO_ORG_ID, demo: true };
}

/** The client of one organization of ORGANIZATIONS_FILE: its own throttle, cache and retry budget. */
function organizationClient(
  config: Config,
  logger: BotLogger,
  key: OrganizationKey,
  tuning: Partial<CloudClientOptions>,
): CloudClient {
  const { keyId, keySecret, orgId } = key;
  logger.addSecrets(keySecret, Buffer.from(`${keyId}:${keySecret}`).toString('base64'));
  const baseUrl = key.apiUrl ?? config.organizations.apiUrl;
  logger.info(`ClickHouse Cloud API ${baseUrl}, organization ${key.name} (${orgId})`);
  return new CloudClient({
    baseUrl,
    keyId,
    keySecret,
    orgId,
    cacheSeconds: config.clickhouse.cacheSeconds,
    timeoutMs: config.clickhouse.timeoutMs,
    logger,
    ...tuning,
  });
}

async function connectCloud(config: Config, logger: BotLogger, tuning: Partial<CloudClientOptions> = {}) {
  const common = {
    cacheSeconds: config.clickhouse.cacheSeconds,
    timeoutMs: config.clickhouse.timeoutMs,
    logger,
    ...tuning,
  };
  if (config.clickhouse.mode === 'live') {
    const { apiUrl, keyId, keySecret, orgId } = config.clickhouse;
    logger.addSecrets(keySecret, Buffer.from(`${keyId}:${keySecret}`).toString('base64'));
    // A wrong URL or organization is otherwise silent until the first command; never the secret.
    logger.info(`ClickHouse Cloud API ${apiUrl}, organization ${orgId}`);
    return { cloud: new CloudClient({ baseUrl: apiUrl, keyId, keySecret, orgId, ...common }), simulator: undefined };
  }
  const simulator = await CloudSimulator.start({
    keyId: DEMO_KEY_ID,
    keySecret: DEMO_KEY_SECRET,
    orgId: DEMO_ORG_ID,
    services: demoServices(),
    transitionMs: config.clickhouse.transitionMs,
  });
  logger.warn(
    `DEMO MODE: CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET are not set, so the bot manages a simulated organization (${simulator.url}), not ClickHouse Cloud.`,
  );
  return {
    cloud: new CloudClient({
      baseUrl: simulator.url,
      keyId: DEMO_KEY_ID,
      keySecret: DEMO_KEY_SECRET,
      orgId: DEMO_ORG_ID,
      ...common,
    }),
    simulator,
  };
}
