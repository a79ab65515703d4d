/**
 * Organizations and channels (ORGANIZATIONS_FILE): which organization serves a channel, with what
 * guardrails, through whose client. Without the file: one organization, every channel, full use.
 */
import type { ChannelBinding } from '../core/organization/types.js';
import type { ServiceDirectory } from './service-directory.js';
import type { SummaryPublisher } from './services.js';

export type { ChannelBinding, ChannelRules } from '../core/organization/types.js';

/** What a channel reaches: its organization's services as the channel sees them, and its summaries. */
export interface ChannelScope extends ChannelBinding {
  /** The organization's services narrowed to the channel's `services` rules. */
  directory: ServiceDirectory;
  summaries: SummaryPublisher;
}

export interface Tenants {
  /** The channel's organization and guardrails as the file says now; undefined when bound to none. */
  scope(channelId: string): ChannelScope | undefined;
  /** The binding alone, without building anything (approval-time checks). */
  binding(channelId: string): ChannelBinding | undefined;
  /** An organization's whole directory; undefined (a request stored before organizations) is the default one. */
  directoryOf(organization: string | undefined): ServiceDirectory;
  /** The organization of requests that name none (the first of the file, or the environment's). */
  defaultOrganization(): string;
  /** Requests name their organization only when there is more than one. */
  several(): boolean;
}

/**
 * An organization a stored request names is not in the file any more (after a restart: a reload
 * keeps the old client for what it began). Nothing can be sent there until it is put back.
 */
export class UnknownOrganizationError extends Error {
  override readonly name = 'UnknownOrganizationError';
  constructor(readonly organization: string) {
    super(
      `the organization ${organization} is not in the bot's organizations file any more: an operator must put it back (and reload the bot) before anything can be changed there`,
    );
  }
}
