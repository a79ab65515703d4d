/**
 * Organizations and the channels bound to them (ORGANIZATIONS_FILE): which ClickHouse Cloud
 * organization a Slack channel drives, and what that channel may do there. Data only.
 */

/** Which services a channel sees and may change: every listed tag with that value, and/or these names or ids. */
export interface ServiceScope {
  tags?: Readonly<Record<string, string>>;
  names?: readonly string[];
}

/** A channel's guardrails; an empty map is full use. */
export interface ChannelRules {
  /** Command words and change kinds allowed in the channel; absent = every one. */
  allow?: readonly string[];
  services?: ServiceScope;
}

export interface OrganizationSpec {
  name: string;
  id: string;
  /** Names of the environment variables holding the key id and secret (never the values). */
  keyIdEnv: string;
  keySecretEnv: string;
  apiUrl?: string;
  channels: Readonly<Record<string, ChannelRules>>;
}

export interface OrganizationsSpec {
  organizations: readonly OrganizationSpec[];
  /** sha256 of the file, for the reload log. */
  digest: string;
}

/** The organization a channel is bound to, and the channel's rules there. */
export interface ChannelBinding {
  organization: string;
  rules: ChannelRules;
}
