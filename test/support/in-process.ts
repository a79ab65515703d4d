/**
 * The middle layer in one process, wired as bot.ts wires it but on the memory stores, the
 * simulator's organization in process and a recording messenger: no Redis, no HTTP, no Slack.
 * Commands go through the real parser and runner; clicks through ApprovalFlow.decide.
 */
import { SecretDelivery } from '../../src/secrets/delivery.js';
import { MemorySecretVault } from '../../src/store/memory/secret-vault.js';
import { TemporaryChanges } from '../../src/approval/temporary-changes.js';
import { ApprovalFlow } from '../../src/approval/approval-flow.js';
import { ApproverPolicy } from '../../src/approval/approvers.js';
import type { BotServices, Invocation } from '../../src/commands/context.js';
import { runCommand } from '../../src/commands/run.js';
import { parseCommand } from '../../src/core/command/parse.js';
import type { ChangeRequest } from '../../src/core/change/types.js';
import type { View } from '../../src/core/render/mrkdwn.js';
import type { ApprovalPolicy, Log, Message, Modals } from '../../src/ports/index.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { InProcessDirectory } from '../../src/simulator/directory.js';
import { demoServices } from '../../src/simulator/seed.js';
import type { ServiceRecordLike } from '../../src/simulator/state.js';
import { MemoryChangeStore, MemoryScheduleStore } from '../../src/store/index.js';
import { Summaries } from '../../src/summary/summaries.js';
import { RecordingMessenger } from './recording-messenger.js';
import { CostLedger } from '../../src/cost/ledger.js';
import { MemoryCostStore } from '../../src/store/memory/cost-store.js';
import { echartsRenderer } from '../../src/chart/echarts.js';
import { ChartPoster } from '../../src/cost/chart-poster.js';

export const CHANNEL = 'C0OPS';
export const ALICE = 'U0ALICE';
export const BOB = 'U0BOB';
export const CAROL = 'U0CAROL';

export interface InProcessOptions {
  services?: ServiceRecordLike[];
  approvers?: string[];
  allowSelfApproval?: boolean;
  /** Replaces the approver list (the ApprovalPolicy seam). */
  policy?: ApprovalPolicy;
  /** Told of each request that moved (the Home tabs' seam). */
  moved?: (request: ChangeRequest) => void;
}

/** Keeps log lines so tests can look at them; writes nothing. */
export function recordingLog(): Log & { lines: string[] } {
  const lines: string[] = [];
  const write = (...message: unknown[]) => void lines.push(message.map(String).join(' '));
  return { lines, debug: write, info: write, warn: write, error: write };
}

/** Modals that keep every view they were given. */
export function recordingModals(): Modals & { views: View[] } {
  const views: View[] = [];
  return {
    views,
    open(_triggerId, view) {
      views.push(view);
      return Promise.resolve({ viewId: `V${views.length}` });
    },
    update(_viewId, view) {
      views.push(view);
      return Promise.resolve();
    },
  };
}

export function inProcess(options: InProcessOptions = {}) {
  /** Real time, moved forward by `offsetMs` (tests move it past a request's expiry). */
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
  const directory = new InProcessDirectory(options.services ?? demoServices());
  const messenger = new RecordingMessenger();
  const changeStore = new MemoryChangeStore();
  const scheduleStore = new MemoryScheduleStore();
  const costStore = new MemoryCostStore(() => clock.now());
  const logger = recordingLog();
  const modals = recordingModals();
  const policy =
    options.policy ??
    new ApproverPolicy({
      approvers: options.approvers ?? [],
      allowSelfApproval: options.allowSelfApproval ?? false,
      messenger,
    });
  const flow: ApprovalFlow = new ApprovalFlow({
    cloud: directory,
    store: changeStore,
    messenger,
    policy,
    ttlMs: 3_600_000,
    logger,
    now: clock.now,
    recheckDelaysMs: [],
    afterSettled: (request) => temporary.afterSettled(request),
    ...(options.moved ? { moved: options.moved } : {}),
  });
  const temporary: TemporaryChanges = new TemporaryChanges({
    flow,
    store: changeStore,
    messenger,
    logger,
    now: clock.now,
  });
  const summaries = new Summaries({
    cloud: directory,
    audit: changeStore,
    snapshots: scheduleStore,
    messenger,
    logger,
  });
  const scheduler = new Scheduler({
    store: scheduleStore,
    logger,
    run: (schedule) =>
      summaries
        .post({
          channelId: schedule.channelId,
          filters: schedule.filters,
          snapshotKey: `schedule:${schedule.id}`,
          scheduled: true,
        })
        .then(() => undefined),
  });
  const services: BotServices = {
    cloud: directory,
    secrets: new SecretDelivery({ vault: new MemorySecretVault(), messenger, logger, now: clock.now }),
    changeStore,
    changeRequests: flow,
    temporary,
    temporaryMaxMs: 7 * 24 * 3600 * 1000,
    approvalRules: {
      current: () => undefined,
      defaults: { approvers: options.approvers ?? [], allowSelfApproval: options.allowSelfApproval ?? false },
    },
    modals,
    scheduleStore,
    scheduler,
    summaries,
    summaryTimeZone: 'UTC',
    scheduleLimits: { minIntervalSeconds: 1, maxPerChannel: 10 },
    auditRetentionDays: 400,
    timeZoneOf: () => Promise.resolve({ zone: 'UTC', source: 'default' as const }),
    now: Date.now,
    logger,
    slashCommand: '/clickhouse',
    messenger,
    costs: new CostLedger({ api: directory, store: costStore, now: clock.now }),
    // Small charts: the real renderer, at a size that keeps tests fast.
    spendCharts: new ChartPoster({
      charts: { dailySpend: (data, chart) => echartsRenderer.dailySpend(data, { ...chart, width: 320, height: 160 }) },
      messenger,
      logger,
    }),
  };

  /** Runs a slash command as `userId` in `channelId`; resolves with the private answers. */
  async function command(text: string, userId = ALICE, channelId = CHANNEL): Promise<Message[]> {
    const replies: Message[] = [];
    const invocation: Invocation = {
      channelId,
      userId,
      triggerId: 'trigger-1',
      reply: (message) => {
        replies.push(message);
        return Promise.resolve();
      },
    };
    await runCommand(parseCommand(text), invocation, services);
    return replies;
  }

  /** Asks for a change with a command and returns the id of the request it posted. */
  async function requestChange(text: string, userId = ALICE): Promise<string> {
    const [answer] = await command(text, userId);
    const id = /CR-[0-9A-F]+/.exec(answer?.text ?? '')?.[0];
    if (!id) throw new Error(`no change request in the answer: ${answer?.text}`);
    return id;
  }

  return {
    clock,
    directory,
    messenger,
    changeStore,
    scheduleStore,
    logger,
    modals,
    flow,
    summaries,
    scheduler,
    services,
    command,
    requestChange,
    costStore,
  };
}

export type InProcess = ReturnType<typeof inProcess>;
