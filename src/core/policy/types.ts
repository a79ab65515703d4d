/**
 * Approval policies as code: the rules of a POLICY_FILE, what a change request is matched on,
 * and what the rules demand of it. Everything here is data; the functions live beside it.
 */

/** Kinds of change a request can touch; the names are the policy file's `changes` values. */
export const CHANGE_KINDS = [
  'name',
  'ip-access',
  'private-endpoints',
  'release-channel',
  'mysql-endpoint',
  'encryption-key',
  'tags',
  'replicas',
  'memory',
  'idle-scaling',
  'power',
  'core-dumps',
  'backup-config',
  'member-role',
  'api-key',
  'delete',
  'upgrade-window',
  'scaling-schedule',
  'query-endpoint',
  'password',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Warnings a change can carry; the names are the policy file's `risks` values. */
export const RISKS = [
  'world-open',
  'broad-ip',
  'last-ip-removed',
  'mysql-on',
  'capacity-down',
  'capacity-up-large',
  'stop',
  'single-replica',
  'backup-retention-cut',
  'backup-less-often',
  'admin-grant',
  'key-enable',
  'delete',
  'query-admin',
  'query-any-origin',
  'credential',
] as const;
export type Risk = (typeof RISKS)[number];

export interface RuleMatch {
  /** Every listed tag present with that value; "*" accepts any value. */
  tags?: Readonly<Record<string, string>>;
  /** Service names or ids. */
  services?: readonly string[];
  changes?: readonly ChangeKind[];
  risks?: readonly Risk[];
}

/** What a rule asks the requester to give with the request (the policy file's `require`). */
export interface Requires {
  /** A reason: `because "…"` in a command, the Reason field of the edit form. */
  reason?: true;
  /** A ticket id matching this regular expression (checked safe at load: core/policy/ticket.ts). */
  ticket?: string;
}

interface RuleBase {
  name: string;
  match: RuleMatch;
  /** 1-based line of the rule in the file, for messages that point at it. */
  line?: number;
}

/** A rule refuses the request outright, or asks for a number of approvals (0 = none needed). */
export type Rule =
  | (RuleBase & { effect: 'deny'; deny: string })
  | (RuleBase & {
      effect: 'approve';
      approvals: number;
      approvers?: readonly string[];
      /** How long a waiting request goes before its thread is bumped (default DEFAULT_REMIND_MS). */
      remindMs?: number;
      /** Still unmet this long after the request was made: these people may approve too. */
      escalate?: Escalation;
      /** The channel the request is decided in (with the buttons); the requester's gets a link. */
      channel?: string;
      /** How approvers hear of it: direct messages, the channel thread, or both. */
      notify?: Notify;
      require?: Requires;
      /** When its changes may be applied (a change asked outside is deferred to the next opening). */
      window?: ChangeWindow;
      /** Periods its changes are refused (break-glass aside), oldest first as written. */
      freezes?: readonly Freeze[];
    });

export interface Escalation {
  afterMs: number;
  to: readonly string[];
}

/** A waiting request is bumped in its thread this long after it was made, and again as long after. */
export const DEFAULT_REMIND_MS = 30 * 60_000;

/** Days of the week as the policy file spells them, Sunday first (Date#getUTCDay order). */
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * A maintenance window: on these days, from `fromMinute` to `toMinute` (minutes after midnight,
 * wall-clock time in `tz`). `toMinute` <= `fromMinute` wraps past midnight (22:00-02:00): the
 * window then opens on a listed day and closes the next morning.
 */
export interface ChangeWindow {
  days: readonly Weekday[];
  fromMinute: number;
  toMinute: number;
  /** IANA time zone, e.g. Europe/Berlin. */
  tz: string;
}

/**
 * A freeze: no change of the rule from the first moment of `from` to the last of `to` (dates
 * YYYY-MM-DD, both inclusive), counted in the rule's window time zone, or UTC without a window.
 */
export interface Freeze {
  from: string;
  to: string;
  reason: string;
}

/** Break-glass changes last at most this long unless the file says `breakglass_max`. */
export const DEFAULT_BREAKGLASS_MAX_MS = 4 * 3_600_000;

export interface Policy {
  rules: readonly Rule[];
  /** Users (U…) and user groups (S…) who may apply a change at once with `breakglass`; none = nobody. */
  breakglass?: readonly string[];
  /** The longest `for` a break-glass change may ask (DEFAULT_BREAKGLASS_MAX_MS unless written). */
  breakglassMaxMs?: number;
  /** sha256 of the file's bytes (hex), recorded with every request made under it. */
  digest: string;
}

/** The service as one side of the change shows it (before, or as it would be after). */
export interface ServiceSide {
  id: string;
  name: string;
  tags: ReadonlyMap<string, string>;
}

/** What rules are matched against: the service on both sides of the change, its kinds and risks. */
export interface RequestFacts {
  before: ServiceSide;
  after: ServiceSide;
  changes: readonly ChangeKind[];
  risks: readonly Risk[];
  /** Approvals the request needs when no rule matches (a delete asks two by itself); 1 when absent. */
  defaultApprovals?: number;
}

/**
 * One rule a request must satisfy, fixed when the request is made (a reload later does not move
 * the goalposts of a request people are already approving).
 */
export interface Requirement {
  /** The rule's name, or the default's. */
  rule: string;
  /** Distinct approvals needed; 0 for a matching rule that asks for none. */
  approvals: number;
  /** User (U…) and user group (S…) ids who count; empty = anyone in the channel but the requester. */
  approvers: readonly string[];
  /** Why the rule applies, for people: "env=prod", "changes ip-access"… */
  reasons: readonly string[];
  /** The rule used when no rule of the policy matches (or without a policy file). */
  isDefault?: boolean;
  /** Only the default rule may let the requester approve (ALLOW_SELF_APPROVAL). */
  selfApproval?: boolean;
  /** What the rule asks the requester to give (a reason, a ticket), checked before anything is posted. */
  require?: Requires;
  /** When the thread is bumped (absent on requests made before reminders: the default). */
  remindMs?: number;
  /** Who may approve too once the request has waited `afterMs` (core/policy/nudges.ts). */
  escalate?: Escalation;
  /** The approval channel the rule names. */
  channel?: string;
  /** Absent: `both` when the rule lists approvers, `channel` otherwise (core/policy/nudges.ts). */
  notify?: Notify;
  /** The rule's maintenance window and freezes (core/policy/window.ts). */
  window?: ChangeWindow;
  freezes?: readonly Freeze[];
}

export const NOTIFY = ['dm', 'channel', 'both'] as const;
export type Notify = (typeof NOTIFY)[number];

/** One person's approval, and the requirements (indices) it counts for. */
export interface Approval {
  userId: string;
  at: number;
  counts: readonly number[];
}

export type PolicyDecision =
  | { kind: 'deny'; rule: string; text: string; reasons: readonly string[] }
  /** Every matching rule says approvals: 0 (and at least one matches). */
  | { kind: 'auto'; requirements: readonly Requirement[] }
  | { kind: 'approve'; requirements: readonly Requirement[] };

/** The default requirement: one approval from APPROVERS (today's behaviour without a policy file). */
export interface PolicyDefaults {
  approvers: readonly string[];
  allowSelfApproval: boolean;
}
