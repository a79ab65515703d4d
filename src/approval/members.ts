/**
 * Who is in the user groups (`S…`) and channels a click depends on, as Slack lists them: cached,
 * since membership changes rarely and a click must be answered fast, or read afresh where a stale
 * list could let someone through (an approval, a click from outside the request's channel).
 */
import type { ChangeRequest } from '../core/change/types.js';
import { decidingChannelOf, groupsOf } from '../core/policy/progress.js';
import type { Requirement } from '../core/policy/types.js';
import { approverLabel } from '../core/render/people.js';
import { MessengerError, type Messenger } from '../ports/messenger.js';

/** Membership of the groups (and, for a click from elsewhere, the channels) a click depends on. */
export interface Membership {
  inGroup: (groupId: string) => boolean;
  /** In the channel the request is decided in: always, for a click there. */
  inChannel: boolean;
  /** In the request's own channel or the one it is decided in: they could see it there. */
  seesChannel: boolean;
  /** Groups Slack would not list, for whoever runs the bot. */
  unknown: string[];
  /** Slack's code when it would not list a channel's members (outsiders are then refused). */
  channelUnread?: string;
}

/** A click from outside the request's channels, and whether to read their members afresh. */
export interface Outside {
  fresh: boolean;
}
export interface MemberListsOptions {
  messenger: Pick<Messenger, 'groupMembers' | 'channelMembers'>;
  groupCacheMs?: number;
  /** How long the Home tab trusts a channel's members (a click reads them afresh); default 1 min. */
  channelCacheMs?: number;
  now: () => number;
}

export class MemberLists {
  /** Members of user groups (`S…`) and channels, as Slack listed them lately, by id. */
  private readonly lists = new Map<string, { members: Promise<Set<string>>; fetchedAt: number }>();

  constructor(private readonly options: MemberListsOptions) {}

  /**
   * The groups of these rules, and for a click from outside the request's channels, whether the
   * person is in them (the channel it is decided in, and its own).
   */
  async membership(
    userId: string,
    request: ChangeRequest,
    requirements: readonly Requirement[],
    read: { fresh: boolean; outside: Outside | undefined },
  ): Promise<Membership> {
    const members = new Map<string, Set<string>>();
    const unknown: string[] = [];
    const groups = Promise.all(
      groupsOf(requirements).map(async (groupId) => {
        try {
          members.set(groupId, await this.groupMembers(groupId, read.fresh));
        } catch (error) {
          unknown.push(`${approverLabel(groupId)} (Slack said: ${slackCode(error)})`);
        }
      }),
    );
    const [, channels] = await Promise.all([groups, this.channelsOf(userId, request, read.outside)]);
    return { inGroup: (groupId) => members.get(groupId)?.has(userId) ?? false, unknown, ...channels };
  }

  /** Whether the person is in the request's channels: for a click there, surely; otherwise as Slack lists them. */
  private async channelsOf(
    userId: string,
    request: ChangeRequest,
    outside: Outside | undefined,
  ): Promise<Pick<Membership, 'inChannel' | 'seesChannel' | 'channelUnread'>> {
    if (!outside) return { inChannel: true, seesChannel: true };
    const deciding = decidingChannelOf(request);
    const ids = [...new Set([deciding, request.channelId])];
    const read = await Promise.all(
      ids.map((channelId) =>
        this.channelMembers(channelId, outside.fresh).then(
          (members) => ({ channelId, member: members.has(userId) }),
          (error: unknown) => ({ channelId, member: false, code: slackCode(error) }),
        ),
      ),
    );
    const unread = read.find((r) => 'code' in r);
    return {
      inChannel: read.some((r) => r.channelId === deciding && r.member),
      seesChannel: read.some((r) => r.member),
      ...(unread && 'code' in unread ? { channelUnread: unread.code } : {}),
    };
  }

  groupMembers(groupId: string, fresh: boolean): Promise<Set<string>> {
    return this.listed(groupId, this.options.groupCacheMs ?? 5 * 60_000, fresh, (id) =>
      this.options.messenger.groupMembers(id),
    );
  }

  private channelMembers(channelId: string, fresh: boolean): Promise<Set<string>> {
    return this.listed(channelId, this.options.channelCacheMs ?? 60_000, fresh, (id) =>
      this.options.messenger.channelMembers(id),
    );
  }

  /** A list of members from Slack, cached for `ttlMs` unless read afresh; a failure is not cached. */
  private listed(
    id: string,
    ttlMs: number,
    fresh: boolean,
    read: (id: string) => Promise<string[]>,
  ): Promise<Set<string>> {
    const cached = this.lists.get(id);
    if (!fresh && cached && this.options.now() - cached.fetchedAt < ttlMs) return cached.members;
    const members = read(id).then(
      (ids) => new Set(ids),
      (error: unknown) => {
        this.lists.delete(id);
        throw error;
      },
    );
    this.lists.set(id, { members, fetchedAt: this.options.now() });
    return members;
  }
}

function slackCode(error: unknown): string {
  return error instanceof MessengerError ? error.code : 'no answer';
}
