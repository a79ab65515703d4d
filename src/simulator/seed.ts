/**
 * The demo organization (what `npm run simulator` serves and what tests and docs refer to) and a
 * generator of synthetic services for scale tests. Everything is deterministic: fixed ids (random
 * looking, as real ones are, so their short forms differ), fixed timestamps, no randomness at run
 * time, so a test or a screenshot can name a service by its id.
 *
 * For capacity and power commands the demo has a horizontally autoscaled service (search-prod), a
 * vertical one (orders-prod), an idle development service that idles after 15 minutes
 * (sandbox-dev) and stopped ones (orders-staging, ml-dev).
 */
import { parseUpgradeWindow, type UpgradeWindow } from './upgrade-window.js';
import { parseSchedule, type ScheduleEntry } from './schedules.js';
import { usedAtOf, type AccessSeed, type KeyRecord } from './access.js';
import type { BackupConfiguration } from './backups.js';
import { currentScalingOf } from './capacity.js';
import type { AccessEntryRecord, EndpointRecord, ServiceRecordLike, TagRecord } from './state.js';

export const DEMO_ORG_ID = '11111111-2222-4333-8444-555555555555';
/** Demo credentials only: the simulator accepts them, nothing real does. */
export const DEMO_KEY_ID = 'simKeyDemo0000000001';
export const DEMO_KEY_SECRET = '4b1dSimulatorDemoSecretNotARealKey000001';

/**
 * An id for a service a test adds next to the demo ones (n is 1-based): 5e000000-0000-4000-8000-
 * followed by n in hex. No demo service uses this prefix.
 */
export const demoServiceId = (n: number): string => `5e000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/**
 * Ids of the demo services by name, so tests read `DEMO_IDS.eventsProd` rather than a UUID. Drawn
 * once at random (version 4) and fixed here, so every 8-character short id is distinct.
 */
export const DEMO_IDS = {
  ordersProd: '3f9c2a71-8d4e-4b6a-9e15-7c0d2f8a4b63',
  ordersProdReadonly: 'a84e1d0c-52f7-4c39-8b2e-1f6a9d3c7e05',
  eventsProd: 'c2d75b9e-1a36-4f8c-a4d0-93e6b7f21c8a',
  billingProd: '6b1f8e24-7c9a-4d53-b6e1-0a2c5f9d8e37',
  searchProd: 'e7a3c6f0-94b2-4e1d-8c7a-5d2f0b8e6a19',
  metricsProd: '19d4b7e2-6f0a-4c85-9a3e-c1b8d5f7e260',
  analyticsStaging: '8e6c0f3a-2b5d-4a97-b1c4-e9d7a2f5c038',
  ordersStaging: 'd05a9b81-3e7c-4f26-a8d9-6b4e1c0f7a52',
  eventsStaging: '4a2e7d9c-b1f6-4835-9c0e-8f3d6a1b5e74',
  sandboxDev: 'f6b8d1a4-0c3e-4d72-85f9-2a7e4c9b1d06',
  mlDev: '2c7f5e08-9a1d-4b6e-b3c2-d8f0a6e4c791',
  legacyReporting: 'b93d0e6f-5a8c-4e14-a7b2-3c9f1d6e8a45',
} as const;

const OFFICE: AccessEntryRecord = { source: '203.0.113.0/24', description: 'Office network' };
const VPN: AccessEntryRecord = { source: '198.51.100.7', description: 'Corporate VPN egress' };

interface Placement {
  id: string;
  name: string;
  provider: 'aws' | 'gcp' | 'azure';
  region: string;
  /** The first label of the service's host name, as the console shows it. */
  subdomain: string;
  createdAt: string;
  tags: TagRecord[];
}

function standardEndpoints(host: string): EndpointRecord[] {
  return [
    { protocol: 'https', host, port: 8443, username: 'default' },
    { protocol: 'nativesecure', host, port: 9440, username: 'default' },
  ];
}

/** A vertically autoscaled, running development service; each demo service overrides from here. */
function baseService(placement: Placement): ServiceRecordLike {
  const { subdomain, ...rest } = placement;
  const host = `${subdomain}.${placement.region}.${placement.provider}.clickhouse.cloud`;
  return {
    ...rest,
    state: 'running',
    tier: 'development',
    releaseChannel: 'default',
    clickhouseVersion: '25.6.2.5983',
    endpoints: standardEndpoints(host),
    autoscalingMode: 'vertical',
    numReplicas: 3,
    minReplicaMemoryGb: 8,
    maxReplicaMemoryGb: 32,
    minTotalMemoryGb: 24,
    maxTotalMemoryGb: 96,
    idleScaling: true,
    idleTimeoutMinutes: 15,
    ipAccessList: [OFFICE, VPN],
    // Only AWS services get an IAM role for S3 access.
    ...(placement.provider === 'aws' ? { iamRole: `arn:aws:iam::111122223333:role/CH-S3-${subdomain}-Role` } : {}),
    privateEndpointIds: [],
    availablePrivateEndpointIds: [],
    dataWarehouseId: placement.id,
    isPrimary: true,
    isReadonly: false,
    hasTransparentDataEncryption: false,
    profile: 'v1-default',
    enableCoreDumps: false,
  };
}

const tags = (env: string | undefined, team: string): TagRecord[] => [
  ...(env === undefined ? [] : [{ key: 'env', value: env }]),
  { key: 'team', value: team },
];

/** Horizontal autoscaling: fixed replica size, a replica count range, and no total-memory fields. */
function horizontal(record: ServiceRecordLike): ServiceRecordLike {
  const vertical = ['numReplicas', 'minTotalMemoryGb', 'maxTotalMemoryGb', 'minReplicaMemoryGb', 'maxReplicaMemoryGb'];
  return {
    ...withoutFields(record, vertical),
    autoscalingMode: 'horizontal',
    minReplicas: 2,
    maxReplicas: 6,
    replicaMemoryGb: 16,
  };
}

function demoRecords(): ServiceRecordLike[] {
  return [
    {
      ...baseService({
        id: DEMO_IDS.ordersProd,
        name: 'orders-prod',
        provider: 'aws',
        region: 'us-east-1',
        subdomain: 'k7q2m9x4ab',
        createdAt: '2024-03-04T09:12:44Z',
        tags: tags('prod', 'data'),
      }),
      tier: 'production',
      idleScaling: false,
      complianceType: 'pci',
      // Customer-managed keys and transparent data encryption: the only service that may rotate a key.
      encryptionKey: 'arn:aws:kms:us-east-1:111122223333:key/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      encryptionAssumedRoleIdentifier: 'arn:aws:iam::111122223333:role/CH-KMS-orders-prod',
      encryptionRoleId: 'ch-kms-orders-prod',
      hasTransparentDataEncryption: true,
      transparentDataEncryptionKeyId: 'tde-key-2024-03',
    },
    {
      ...baseService({
        id: DEMO_IDS.ordersProdReadonly,
        name: 'orders-prod-readonly',
        provider: 'aws',
        region: 'us-east-1',
        subdomain: 'p3n8w1z6cd',
        createdAt: '2024-06-18T14:03:10Z',
        tags: tags('prod', 'data'),
      }),
      tier: 'production',
      // A read-only compute that shares orders-prod's data warehouse.
      dataWarehouseId: DEMO_IDS.ordersProd,
      isPrimary: false,
      isReadonly: true,
      numReplicas: 2,
      ipAccessList: [OFFICE],
    },
    {
      ...baseService({
        id: DEMO_IDS.eventsProd,
        name: 'events-prod',
        provider: 'aws',
        region: 'eu-west-1',
        subdomain: 'f9t4r2k8ef',
        createdAt: '2024-01-22T08:45:00Z',
        tags: tags('prod', 'platform'),
      }),
      tier: 'production',
      releaseChannel: 'fast',
      idleScaling: false,
      // Risky: open to the whole internet.
      ipAccessList: [OFFICE, { source: '0.0.0.0/0', description: 'temporary: partner load test' }],
    },
    {
      ...baseService({
        id: DEMO_IDS.billingProd,
        name: 'billing-prod',
        provider: 'gcp',
        region: 'us-central1',
        subdomain: 'b2v7c5n1gh',
        createdAt: '2023-11-30T17:20:31Z',
        tags: tags('prod', 'data'),
      }),
      state: 'degraded',
      tier: 'production',
      releaseChannel: 'slow',
      idleScaling: false,
      complianceType: 'hipaa',
      // Risky: the MySQL interface is switched on.
      endpoints: [
        ...standardEndpoints('b2v7c5n1gh.us-central1.gcp.clickhouse.cloud'),
        {
          protocol: 'mysql',
          host: 'b2v7c5n1gh.us-central1.gcp.clickhouse.cloud',
          port: 3306,
          username: 'mysql4b2v7c5n1gh',
        },
      ],
    },
    {
      ...horizontal(
        baseService({
          id: DEMO_IDS.searchProd,
          name: 'search-prod',
          provider: 'azure',
          region: 'eastus2',
          subdomain: 'm6h3j8d2ij',
          createdAt: '2024-08-09T11:00:00Z',
          tags: tags('prod', 'platform'),
        }),
      ),
      // A dedicated tier: like production, it may switch release channels.
      tier: 'dedicated_high_mem',
      idleScaling: false,
      profile: 'v1-highmem-xs',
      // Private endpoints exist for this service but none is attached: traffic goes over the internet.
      availablePrivateEndpointIds: ['pe-azure-search-eastus2-a', 'pe-azure-search-eastus2-b'],
    },
    {
      ...baseService({
        id: DEMO_IDS.metricsProd,
        name: 'metrics-prod',
        provider: 'aws',
        region: 'us-west-2',
        subdomain: 'q1w5e9r3kl',
        createdAt: '2024-02-14T06:30:12Z',
        tags: tags('prod', 'analytics'),
      }),
      tier: 'production',
      // A scaling schedule is active: 4 x 16–64 GB now, against a baseline of 3 x 8–32 GB.
      currentScaling: {
        effectiveAutoscalingMode: 'vertical',
        effectiveMinReplicaMemoryGb: 16,
        effectiveMaxReplicaMemoryGb: 64,
        effectiveMinReplicas: 4,
        effectiveMaxReplicas: 4,
      },
      privateEndpointIds: ['vpce-0a1b2c3d4e5f60001'],
      availablePrivateEndpointIds: ['vpce-0a1b2c3d4e5f60001', 'vpce-0a1b2c3d4e5f60002'],
    },
    {
      ...baseService({
        id: DEMO_IDS.analyticsStaging,
        name: 'analytics staging',
        provider: 'gcp',
        region: 'europe-west4',
        subdomain: 'z8x2c6v4mn',
        createdAt: '2024-05-02T13:14:15Z',
        tags: tags('staging', 'analytics'),
      }),
      state: 'idle',
    },
    {
      ...baseService({
        id: DEMO_IDS.ordersStaging,
        name: 'orders-staging',
        provider: 'aws',
        region: 'us-east-1',
        subdomain: 'a4s8d2f6op',
        createdAt: '2024-03-04T09:40:02Z',
        tags: tags('staging', 'data'),
      }),
      state: 'stopped',
      numReplicas: 1,
    },
    {
      ...baseService({
        id: DEMO_IDS.eventsStaging,
        name: 'events-staging',
        provider: 'aws',
        region: 'eu-west-1',
        subdomain: 'g7h1j5k9qr',
        createdAt: '2024-01-25T10:05:55Z',
        tags: tags('staging', 'platform'),
      }),
      tier: 'production',
      // Risky: no entry at all, so no client can reach the service.
      ipAccessList: [],
    },
    {
      ...baseService({
        id: DEMO_IDS.sandboxDev,
        name: 'sandbox-dev',
        provider: 'aws',
        region: 'us-east-1',
        subdomain: 'l3k7j1h5st',
        createdAt: '2025-01-07T15:45:30Z',
        tags: tags('dev', 'data'),
      }),
      state: 'idle',
      numReplicas: 1,
      enableCoreDumps: true,
      // The real API sends a null username for some endpoints.
      endpoints: [
        { protocol: 'https', host: 'l3k7j1h5st.us-east-1.aws.clickhouse.cloud', port: 8443, username: 'default' },
        { protocol: 'nativesecure', host: 'l3k7j1h5st.us-east-1.aws.clickhouse.cloud', port: 9440, username: null },
      ],
    },
    withoutFields(
      {
        ...baseService({
          id: DEMO_IDS.mlDev,
          name: 'ml-dev',
          provider: 'gcp',
          region: 'us-east1',
          subdomain: 'u9y3t7r1uv',
          createdAt: '2025-02-11T09:00:00Z',
          tags: tags('dev', 'analytics'),
        }),
        state: 'stopped',
      },
      // tier is deprecated and releaseChannel optional: some live records carry neither.
      ['tier', 'releaseChannel', 'profile', 'enableCoreDumps'],
    ),
    {
      ...baseService({
        id: DEMO_IDS.legacyReporting,
        name: 'legacy-reporting',
        provider: 'azure',
        region: 'westeurope',
        subdomain: 'w2e6r0t4wx',
        createdAt: '2022-09-19T12:00:00Z',
        // No env tag; a dotted value and a tag without a value, to exercise filter parsing.
        tags: [...tags(undefined, 'analytics'), { key: 'migration', value: 'phase.2' }, { key: 'keep' }],
      }),
      clickhouseVersion: '24.8.4.13',
    },
  ];
}

/**
 * Current records carry `currentScaling`: what is in effect now. It equals the baseline unless a
 * scaling schedule entry is active (metrics-prod has one in the demo organization).
 */
function withCurrentScaling(record: ServiceRecordLike): ServiceRecordLike {
  if (record['currentScaling'] !== undefined) return record;
  return { ...record, currentScaling: currentScalingOf(record) };
}

function withoutFields(record: ServiceRecordLike, fields: readonly string[]): ServiceRecordLike {
  const copy: ServiceRecordLike = { ...record };
  for (const field of fields) delete copy[field];
  return copy;
}

/** Fresh copies of the 12 demo services, safe to mutate (no object is shared between calls). */
export function demoServices(): ServiceRecordLike[] {
  return structuredClone(demoRecords().map(withCurrentScaling));
}

// ---------------------------------------------------------------------------------------------
// Synthetic services for scale tests

export interface SyntheticOptions {
  /** IP access entries per service; 2 unless given. */
  ipEntries?: number;
  /** Every k-th service (k, 2k, ...) gets `largeIpListSize` entries instead. */
  largeIpListEvery?: number;
  /** 200 unless given. */
  largeIpListSize?: number;
}

const ENVS = ['prod', 'staging', 'dev'] as const;
const TEAMS = ['data', 'platform', 'analytics'] as const;
const STATES = ['running', 'running', 'running', 'idle', 'stopped', 'degraded'] as const;
const PLACES = [
  { provider: 'aws', region: 'us-east-1' },
  { provider: 'gcp', region: 'europe-west4' },
  { provider: 'azure', region: 'eastus2' },
] as const;

/** Synthetic service n (1-based) has the id a0000000-0000-4000-8000-<n in hex, 12 digits>. */
export const syntheticServiceId = (n: number): string => `a0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Distinct /32 sources 10.x.y.z, enough for any list size a test asks for. */
function syntheticIpList(count: number): AccessEntryRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    source: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    description: `synthetic client ${i + 1}`,
  }));
}

function pick<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

function syntheticService(n: number, ipEntries: number): ServiceRecordLike {
  const place = pick(PLACES, n);
  const env = pick(ENVS, n);
  // Team changes every third service, so every env/team pair occurs.
  const team = pick(TEAMS, Math.floor(n / 3));
  const record = baseService({
    id: syntheticServiceId(n),
    name: `svc-${String(n).padStart(4, '0')}`,
    ...place,
    subdomain: `syn${n.toString(36).padStart(7, '0')}`,
    createdAt: new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString(),
    tags: tags(env, team),
  });
  return {
    ...record,
    state: pick(STATES, n),
    tier: env === 'prod' ? 'production' : 'development',
    ipAccessList: syntheticIpList(ipEntries),
  };
}

export function syntheticServices(count: number, options: SyntheticOptions = {}): ServiceRecordLike[] {
  const { ipEntries = 2, largeIpListEvery, largeIpListSize = 200 } = options;
  const records = Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const large = largeIpListEvery !== undefined && largeIpListEvery > 0 && n % largeIpListEvery === 0;
    return syntheticService(n, large ? largeIpListSize : ipEntries);
  });
  return structuredClone(records);
}

/**
 * The demo's customised backup configurations (the others keep the default: daily, kept a day):
 * orders-prod is backed up every 6 hours and kept 2 days, so its list shows a daily full with
 * incrementals between; billing-prod at 02:30 UTC, kept a week.
 */
export const DEMO_BACKUP_CONFIGURATIONS: Readonly<Record<string, BackupConfiguration>> = {
  [DEMO_IDS.ordersProd]: { backupPeriodInHours: 6, backupRetentionPeriodInHours: 48 },
  [DEMO_IDS.billingProd]: { backupPeriodInHours: 24, backupRetentionPeriodInHours: 168, backupStartTime: '02:30' },
};

/**
 * billing-prod's upgrade window (Saturdays from 18:00 UTC) and scaling schedule (idle scaling
 * kept off at night, as its base has it: the entry changes nothing it runs with), so that the help
 * examples that take them away work in the demo; every other service has neither.
 */
export const DEMO_UPGRADE_WINDOWS: Readonly<Record<string, { weekday: number; startHourUtc: number }>> = {
  [DEMO_IDS.billingProd]: { weekday: 6, startHourUtc: 18 },
};
export const DEMO_SCALING_SCHEDULES: Readonly<Record<string, { entries: readonly object[] }>> = {
  [DEMO_IDS.billingProd]: {
    entries: [{ name: 'night', weekdays: [0, 1, 2, 3, 4, 5, 6], startHourUtc: 22, endHourUtc: 6, idleScaling: false }],
  },
};

/** The demo's windows and schedules as the simulator keeps them, through the same checks as a PUT or POST. */
export function demoWindowsAndSchedules(): {
  windows: Map<string, UpgradeWindow>;
  schedules: Map<string, ScheduleEntry[]>;
} {
  const windows = new Map<string, UpgradeWindow>();
  const schedules = new Map<string, ScheduleEntry[]>();
  for (const [id, window] of Object.entries(DEMO_UPGRADE_WINDOWS)) {
    const parsed = parseUpgradeWindow(window);
    if (parsed.ok) windows.set(id, parsed.value);
  }
  for (const [id, schedule] of Object.entries(DEMO_SCALING_SCHEDULES)) {
    const parsed = parseSchedule(schedule);
    if (parsed.ok) schedules.set(id, parsed.value);
  }
  return { windows, schedules };
}

/**
 * The demo's Query API endpoints (the others are off): events-prod lets the read-only CI key query
 * it from one dashboard's origin, so that `query-endpoint events-prod` shows one on, and switching
 * it off changes something.
 */
export const DEMO_QUERY_ENDPOINTS: Readonly<
  Record<
    string,
    { roles: Array<'sql_console_read_only' | 'sql_console_admin'>; openApiKeys: string[]; allowedOrigins: string }
  >
> = {
  [DEMO_IDS.eventsProd]: {
    roles: ['sql_console_read_only'],
    openApiKeys: ['de7e0000-0000-4000-8000-000000000120'], // ci-readonly (DEMO_OTHER_KEY_IDS.unused)
    allowedOrigins: 'dash.example.com',
  },
};

export const DEMO_ROLE_IDS = {
  admin: 'a11d0000-0000-4000-8000-00000000ad01',
  developer: 'a11d0000-0000-4000-8000-00000000de02',
  billingViewer: 'c0570000-0000-4000-8000-0000000b1113',
} as const;

export const DEMO_MEMBER_IDS = {
  admin: '05e40000-0000-4000-8000-000000000a11',
  developer: '05e40000-0000-4000-8000-000000000b0b',
  billing: '05e40000-0000-4000-8000-000000000ca1',
} as const;

export const DEMO_OTHER_KEY_IDS = {
  unused: 'de7e0000-0000-4000-8000-000000000120',
  neverExpires: 'de7e0000-0000-4000-8000-00000000f0e7',
  /** A dashboard's key, disabled when the dashboard was retired (so that `key enable` has one to enable). */
  disabled: 'de7e0000-0000-4000-8000-0000000d15ab',
} as const;

const DAY_MS = 24 * 3_600_000;

/**
 * The demo's roles, members and API keys, dated from `now` (the simulator's start): Admin and
 * Developer (system) and a custom Billing viewer; a member holding each; the simulator's own key
 * (admin, in use; not documented: its id is the Basic auth key id, the document's ids are UUIDs),
 * a key created 120 days ago and never used, and one that never expires.
 */
export function demoAccess(keyId: string, keySecret: string, now: number): AccessSeed {
  const at = (daysAgo: number): string => new Date(now - daysAgo * DAY_MS).toISOString();
  const minute = (daysAgo: number): string => usedAtOf(now - daysAgo * DAY_MS);
  const roles: AccessSeed['roles'] = [
    { id: DEMO_ROLE_IDS.admin, name: 'Admin', type: 'system', createdAt: at(900), permissions: ['control-plane:*'] },
    {
      id: DEMO_ROLE_IDS.developer,
      name: 'Developer',
      type: 'system',
      createdAt: at(900),
      permissions: ['control-plane:organization:view', 'control-plane:service:view'],
    },
    {
      id: DEMO_ROLE_IDS.billingViewer,
      name: 'Billing viewer',
      type: 'custom',
      createdAt: at(200),
      permissions: ['control-plane:organization:view-billing'],
    },
  ];
  const member = (userId: string, name: string, email: string, joinedDaysAgo: number, ...roleIds: string[]) => ({
    userId,
    name,
    email,
    joinedAt: at(joinedDaysAgo),
    assignedRoleIds: roleIds,
  });
  const members = [
    member(DEMO_MEMBER_IDS.admin, 'Ada Admin', 'ada@example.com', 800, DEMO_ROLE_IDS.admin),
    member(DEMO_MEMBER_IDS.developer, 'Dev Eloper', 'dev@example.com', 400, DEMO_ROLE_IDS.developer),
    // Two roles: revoking one (the help example) leaves the other; a member keeps one role at least.
    member(
      DEMO_MEMBER_IDS.billing,
      'Bill Ing',
      'bill@example.com',
      150,
      DEMO_ROLE_IDS.billingViewer,
      DEMO_ROLE_IDS.developer,
    ),
  ];
  const key = (id: string, name: string, roleId: string, createdDaysAgo: number, rest: Partial<KeyRecord>) => ({
    id,
    name,
    state: 'enabled' as const,
    assignedRoleIds: [roleId],
    keySuffix: id.slice(-4),
    createdAt: at(createdDaysAgo),
    ipAccessList: [],
    ...rest,
  });
  const keys = [
    key(keyId, 'chat-ops bot', DEMO_ROLE_IDS.admin, 200, {
      keySuffix: keySecret.slice(-4),
      expireAt: new Date(now + 165 * DAY_MS).toISOString(),
      usedAt: usedAtOf(now),
      ipAccessList: [{ source: '0.0.0.0/0', description: 'anywhere' }],
    }),
    key(DEMO_OTHER_KEY_IDS.unused, 'ci-readonly', DEMO_ROLE_IDS.developer, 120, {
      keySuffix: 'q7Zk',
      expireAt: new Date(now + 245 * DAY_MS).toISOString(),
      ipAccessList: [{ source: '203.0.113.0/24', description: 'CI runners' }],
    }),
    key(DEMO_OTHER_KEY_IDS.neverExpires, 'terraform', DEMO_ROLE_IDS.admin, 500, {
      keySuffix: 'T3rr',
      expireAt: null,
      usedAt: minute(3),
    }),
    key(DEMO_OTHER_KEY_IDS.disabled, 'old-dashboard', DEMO_ROLE_IDS.developer, 400, {
      keySuffix: 'D4sh',
      state: 'disabled',
      expireAt: new Date(now + 30 * DAY_MS).toISOString(),
      usedAt: minute(200),
    }),
  ];
  return { roles, members, keys };
}
