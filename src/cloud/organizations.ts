/**
 * ORGANIZATIONS_FILE: read at start, where a bad file stops the bot with every problem listed, and
 * again on SIGHUP, where a bad file keeps the organizations in force and logs every problem. Each
 * organization gets its own CloudClient (its own throttle, read cache and retry budget), kept
 * across reloads while its id, URL and key stay the same, so one organization's outage or 429s
 * never slow another's. Key secrets are read from the environment variables the file names.
 */
import { readFile, stat } from 'node:fs/promises';
import { MAX_ORGANIZATIONS_BYTES, parseOrganizations } from '../core/organization/parse.js';
import type { ChannelBinding, OrganizationSpec, OrganizationsSpec } from '../core/organization/types.js';
import type { Log } from '../ports/log.js';
import { UnknownOrganizationError, type ChannelScope, type Tenants } from '../ports/organizations.js';
import type { ServiceDirectory } from '../ports/service-directory.js';
import type { SummaryPublisher } from '../ports/services.js';
import type { CloudClient } from './client.js';
import { scopedDirectory } from './scoped-directory.js';

/** The organization of the environment (CLICKHOUSE_*), when there is no file. */
export const DEFAULT_ORGANIZATION = 'default';

export class OrganizationsFileError extends Error {
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(
      `ORGANIZATIONS_FILE ${path} has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'OrganizationsFileError';
  }
}

/** What a client is made from; the secret comes from the environment, never the file. */
export interface OrganizationKey {
  name: string;
  orgId: string;
  apiUrl: string | undefined;
  keyId: string;
  keySecret: string;
}

export interface OrganizationsOptions {
  path: string | undefined;
  /** Where key_id_env and key_secret_env are looked up. */
  env: Readonly<Record<string, string | undefined>>;
  logger: Pick<Log, 'info' | 'error'>;
  /** The environment's client, used when there is no file. */
  fallback: () => CloudClient;
  /** A client for one organization of the file. */
  connect: (key: OrganizationKey) => CloudClient;
  /** Summaries posted through this directory, for a channel bound so (bot.ts builds them). */
  summaries: (directory: ServiceDirectory, binding: ChannelBinding) => SummaryPublisher;
}

export type OrganizationsReload =
  { ok: true; changed: boolean; organizations: string[] } | { ok: false; problems: readonly string[] };

interface Tenant {
  spec: OrganizationSpec | undefined;
  key: string;
  client: CloudClient;
}

export class Organizations implements Tenants {
  private tenants = new Map<string, Tenant>();
  private defaultName = DEFAULT_ORGANIZATION;
  private spec: OrganizationsSpec | undefined;
  /**
   * Clients replaced by a reload, by organization: closed at stop, as requests may still be using
   * them, and a temporary change of an organization taken out of the file is still reverted there.
   */
  private retired = new Map<string, CloudClient[]>();
  private reloading: Promise<OrganizationsReload> | undefined;

  private constructor(private readonly options: OrganizationsOptions) {}

  /** Throws OrganizationsFileError when the file is bad: the bot must not start on it. */
  static async open(options: OrganizationsOptions): Promise<Organizations> {
    const organizations = new Organizations(options);
    if (options.path === undefined) {
      organizations.tenants.set(DEFAULT_ORGANIZATION, { spec: undefined, key: '', client: options.fallback() });
      return organizations;
    }
    organizations.install(await organizations.read(options.path));
    options.logger.info(`organizations ${options.path}: ${organizations.describe()}`);
    return organizations;
  }

  scope(channelId: string): ChannelScope | undefined {
    const binding = this.binding(channelId);
    if (!binding) return undefined;
    const directory = scopedDirectory(this.directoryOf(binding.organization), binding.rules.services);
    return { ...binding, directory, summaries: this.options.summaries(directory, binding) };
  }

  binding(channelId: string): ChannelBinding | undefined {
    if (!this.spec) return { organization: DEFAULT_ORGANIZATION, rules: {} };
    for (const organization of this.spec.organizations) {
      const rules = organization.channels[channelId];
      if (rules) return { organization: organization.name, rules };
    }
    return undefined;
  }

  directoryOf(organization: string | undefined): ServiceDirectory {
    return this.clientOf(organization);
  }

  /** The organization's client (the default one for undefined); a name the file no longer has keeps its last client. */
  clientOf(organization: string | undefined): CloudClient {
    const name = organization ?? this.defaultName;
    const client = this.tenants.get(name)?.client ?? this.retired.get(name)?.at(-1);
    if (!client) throw new UnknownOrganizationError(name);
    return client;
  }

  /** Every client in use (metrics, the key check, closing). */
  clients(): CloudClient[] {
    return [...this.tenants.values()].map((tenant) => tenant.client);
  }

  /** Whether the file has this organization now (undefined: the default one, always there). */
  has(organization: string | undefined): boolean {
    return organization === undefined || this.tenants.has(organization);
  }

  names(): string[] {
    return [...this.tenants.keys()];
  }

  /** The organization's id (a UUID) by its name in the file; undefined for a name it does not have. */
  idOf(name: string): string | undefined {
    return this.tenants.get(name)?.spec?.id;
  }

  defaultOrganization(): string {
    return this.defaultName;
  }

  several(): boolean {
    return this.tenants.size > 1;
  }

  /** Re-reads the file; a bad file keeps the organizations in force. One reload at a time. */
  reload(): Promise<OrganizationsReload> {
    this.reloading ??= this.reloadNow().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients(), ...[...this.retired.values()].flat()].map((client) => client.close()));
  }

  private async reloadNow(): Promise<OrganizationsReload> {
    const { path, logger } = this.options;
    if (path === undefined) {
      logger.info('organizations reload asked, but ORGANIZATIONS_FILE is not set: one organization, every channel');
      return { ok: true, changed: false, organizations: this.names() };
    }
    try {
      const spec = await this.read(path);
      const changed = spec.digest !== this.spec?.digest;
      this.install(spec);
      logger.info(`organizations ${path} ${changed ? 'reloaded' : 'unchanged'}: ${this.describe()}`);
      return { ok: true, changed, organizations: this.names() };
    } catch (error) {
      const problems = error instanceof OrganizationsFileError ? error.problems : [String(error)];
      logger.error(
        `organizations ${path} NOT reloaded, the organizations in force stay (${this.describe()}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      );
      return { ok: false, problems };
    }
  }

  private async read(path: string): Promise<OrganizationsSpec> {
    let text: string;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new OrganizationsFileError(path, ['it is not a file']);
      if (info.size > MAX_ORGANIZATIONS_BYTES)
        throw new OrganizationsFileError(path, [`it has ${info.size} bytes; the limit is ${MAX_ORGANIZATIONS_BYTES}`]);
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (error instanceof OrganizationsFileError) throw error;
      throw new OrganizationsFileError(path, [readProblem(error)]);
    }
    const parsed = parseOrganizations(text, (name) => (this.options.env[name] ?? '').trim() !== '');
    if (!parsed.ok) throw new OrganizationsFileError(path, parsed.problems);
    return parsed.spec;
  }

  /** Swaps the organizations in; a client whose organization, URL and key are unchanged is kept with its state. */
  private install(spec: OrganizationsSpec): void {
    const next = new Map<string, Tenant>();
    for (const organization of spec.organizations) {
      const key = this.keyOf(organization);
      const identity = JSON.stringify([key.orgId, key.apiUrl, key.keyId, key.keySecret]);
      const kept = this.tenants.get(organization.name);
      next.set(organization.name, {
        spec: organization,
        key: identity,
        client: kept?.key === identity ? kept.client : this.options.connect(key),
      });
    }
    for (const [name, tenant] of this.tenants) {
      if (next.get(name)?.client !== tenant.client)
        this.retired.set(name, [...(this.retired.get(name) ?? []), tenant.client]);
    }
    this.tenants = next;
    this.spec = spec;
    this.defaultName = spec.organizations[0]?.name ?? DEFAULT_ORGANIZATION;
  }

  private keyOf(organization: OrganizationSpec): OrganizationKey {
    const { env } = this.options;
    return {
      name: organization.name,
      orgId: organization.id,
      apiUrl: organization.apiUrl,
      keyId: (env[organization.keyIdEnv] ?? '').trim(),
      keySecret: (env[organization.keySecretEnv] ?? '').trim(),
    };
  }

  private describe(): string {
    if (!this.spec) return 'one organization from the environment, every channel';
    return this.spec.organizations
      .map(
        (o) =>
          `${o.name} (${o.id}, ${Object.keys(o.channels).length} channel${Object.keys(o.channels).length === 1 ? '' : 's'})`,
      )
      .join(', ');
  }
}

function readProblem(error: unknown): string {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  if (code === 'ENOENT') return 'it does not exist (check the path, relative to the directory the bot starts in)';
  if (code === 'EACCES') return 'the bot may not read it (check its permissions)';
  return `it could not be read (${error instanceof Error ? error.message : String(error)})`;
}
