import { section } from '../core/render/mrkdwn.js';
import type {
  ApprovalRules,
  ChangeRequestService,
  ChangeStore,
  CostReader,
  Log,
  Message,
  Messenger,
  Modals,
  ScheduleRegistry,
  SpendCharts,
  ScheduleStore,
  ServiceDirectory,
  SummaryPublisher,
  Tenants,
  TemporaryChangeService,
} from '../ports/index.js';

export type { Modals } from '../ports/modals.js';
import type { TimeZoneOf } from './time-zone.js';
import type { ChannelRules } from '../core/organization/types.js';
import type { SecretDeliveryService } from '../ports/secret-vault.js';

/** Everything command handlers use, wired once by the composition root. */
export interface BotServices {
  cloud: ServiceDirectory;
  changeStore: ChangeStore;
  changeRequests: ChangeRequestService;
  temporary: TemporaryChangeService;
  /** TEMPORARY_MAX_SECONDS in ms. */
  temporaryMaxMs: number;
  /** CONSOLE_URL: where a service's name links to; undefined: no links. */
  consoleUrl?: string;
  /** How long a request waits for approval (CHANGE_TTL_SECONDS in ms); what it keeps sealed is held as long. */
  changeTtlMs?: number;
  approvalRules: ApprovalRules;
  modals: Modals;
  scheduleStore: ScheduleStore;
  scheduler: ScheduleRegistry;
  summaries: SummaryPublisher;
  summaryTimeZone: string;
  scheduleLimits: { minIntervalSeconds: number; maxPerChannel: number };
  /** AUDIT_RETENTION_DAYS: how far back `history` can ever look. */
  auditRetentionDays: number;
  logger: Log;
  slashCommand: string;
  /** The zone `at TIME` is read in when the command names none (commands/time-zone.ts). */
  timeZoneOf: TimeZoneOf;
  /** The app's clock (requests, expiry, `at TIME`); tests move it. */
  now: () => number;
  /**
   * Organizations and channels (ORGANIZATIONS_FILE): each command is served by its channel's
   * organization, within the channel's guardrails. Without it, `cloud` serves every channel.
   */
  tenants?: Tenants;
  /** Posts reports and shares charts in the channel. */
  messenger: Messenger;
  /** Usage cost rows, cached (cost/ledger.ts). */
  costs: CostReader;
  /** Why this channel gets no spend (its organization is not the one costs are read for); undefined: it does. */
  costsUnavailable?: string;
  /** Draws and shares the daily spend chart (cost/chart-poster.ts). */
  spendCharts: SpendCharts;
  /** Hands secrets (a restored service's password) to one person through Reveal. */
  secrets: SecretDeliveryService;
  /** The channel's guardrails (ORGANIZATIONS_FILE), once the services are the channel's own. */
  channelRules?: ChannelRules;
}

/** One slash command as the handlers see it, whatever carried it (HTTP or Socket Mode). */
export interface Invocation {
  channelId: string;
  userId: string;
  triggerId: string;
  /** Answers only the person who typed the command (Slack's response_url). */
  reply(message: Message): Promise<void>;
  /**
   * Offers an answer just given to be given again to the same command in this channel (with
   * `everyChannel`, in any channel of the workspace), by anyone, until `until` (epoch ms), without
   * running it: only for answers that depend on nothing else (not the person, not the time) and
   * whose data stays the same until then. Absent: not offered.
   */
  offerAgain?(message: Message, until: number, everyChannel?: boolean): void;
}

/** Answers with one paragraph of mrkdwn. */
export function replyText(inv: Invocation, text: string): Promise<void> {
  return inv.reply({ text, blocks: [section(text)] });
}
