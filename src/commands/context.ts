import type { Logger } from '@slack/bolt';
import type { ChangeRequests } from '../approval/change-requests.js';
import type { Message } from '../approval/messenger.js';
import type { CloudClient } from '../cloud/client.js';
import type { View } from '../core/render/mrkdwn.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { ScheduleStore } from '../store/schedules.js';
import type { ChangeStore } from '../store/types.js';
import type { Summaries } from '../summary/summaries.js';

/** Opening and filling modals; trigger ids expire 3 s after the command, so open comes first. */
export interface Modals {
  open(triggerId: string, view: View): Promise<{ viewId: string; hash?: string }>;
  update(viewId: string, view: View, hash?: string): Promise<void>;
}

/** Everything command handlers use, wired once by the composition root. */
export interface BotServices {
  cloud: CloudClient;
  store: ChangeStore;
  changes: ChangeRequests;
  modals: Modals;
  schedules: ScheduleStore;
  scheduler: Scheduler;
  summaries: Summaries;
  summaryTimeZone: string;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  slashCommand: string;
}

/** One slash command as the handlers see it, whatever carried it (HTTP or Socket Mode). */
export interface Invocation {
  channelId: string;
  userId: string;
  triggerId: string;
  /** Answers only the person who typed the command (Slack's response_url). */
  reply(message: Message): Promise<void>;
}
