/**
 * The shapes of the simulator's stored records and of its validation outcomes: their own module,
 * so the organization (state.ts) and the capacity rules (capacity.ts) both import them.
 */

export interface EndpointRecord {
  protocol: string;
  host?: string;
  port?: number;
  /** The real API sends null here for some services. */
  username?: string | null;
  [extra: string]: unknown;
}

export interface AccessEntryRecord {
  source: string;
  description?: string;
  [extra: string]: unknown;
}

export interface TagRecord {
  key: string;
  value?: string;
}

/**
 * A stored service record: the fields the simulator's rules read are typed, everything else is
 * kept as-is so that seeds can carry the real API's extra fields (and tests can add odd ones).
 */
export interface ServiceRecordLike {
  id: string;
  name: string;
  provider?: string;
  region?: string;
  state?: string;
  tier?: string;
  releaseChannel?: string;
  endpoints?: EndpointRecord[];
  ipAccessList?: AccessEntryRecord[];
  privateEndpointIds?: string[];
  availablePrivateEndpointIds?: string[];
  hasTransparentDataEncryption?: boolean;
  transparentDataEncryptionKeyId?: string;
  tags?: TagRecord[];
  [extra: string]: unknown;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };
