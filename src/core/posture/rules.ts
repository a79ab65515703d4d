/** Risk rules over one service record. Pure: the same record always gives the same findings. */
import type { ServiceRecord } from '../service/schema.js';
import { mysqlEnabled } from '../change/state.js';
import { ipExposure, type OpenFamily } from './exposure.js';
import { FAMILY_NAMES } from '../network/cidr.js';

export type PostureCode =
  | 'open-to-world'
  | 'broad-ip-entry'
  | 'empty-ip-list'
  | 'mysql-enabled'
  | 'no-private-endpoint'
  | 'state-degraded'
  | 'state-failed'
  | 'state-partially-running';

/** The states that deserve attention, each its own finding so summaries count them apart. */
const STATE_FINDINGS: Record<string, PostureFinding> = {
  degraded: { code: 'state-degraded', label: 'degraded', detail: 'The service is degraded.' },
  failed: { code: 'state-failed', label: 'failed', detail: 'The service is in a failed state.' },
  partially_running: {
    code: 'state-partially-running',
    label: 'partially running',
    detail: 'The service is only partially running.',
  },
};

export interface PostureFinding {
  code: PostureCode;
  /** Short label for compact lists. */
  label: string;
  /** A sentence for the summary: what it means. */
  detail: string;
}

/**
 * Transparent data encryption off is not a finding: it can only be chosen when a service is
 * created, in Enterprise organizations, so nobody could act on it.
 */
export function postureFindings(service: ServiceRecord): PostureFinding[] {
  const findings: PostureFinding[] = [];
  const { state } = service;
  const stateFinding = state !== undefined && Object.hasOwn(STATE_FINDINGS, state) ? STATE_FINDINGS[state] : undefined;
  if (stateFinding !== undefined) findings.push({ ...stateFinding });
  const ipList = service.ipAccessList;
  const exposure = ipExposure((ipList ?? []).map((entry) => entry.source));
  if (exposure.open.length > 0) {
    findings.push({
      code: 'open-to-world',
      label: 'open to the internet',
      detail: `IP access list allows ${exposure.open.map(allowsText).join(' and ')}: anyone on the internet can try to connect.`,
    });
  }
  if (exposure.broad.length > 0) {
    findings.push({
      code: 'broad-ip-entry',
      label: 'very broad IP entry',
      detail: `IP access list allows ${exposure.broad.map((b) => b.source).join(', ')}: ${exposure.broad.length === 1 ? 'a block' : 'blocks'} of millions of addresses (IPv4 shorter than /8, IPv6 shorter than /16).`,
    });
  }
  // An absent list means the record did not say; only an explicit empty list is a finding.
  if (ipList !== undefined && ipList.length === 0) {
    findings.push({
      code: 'empty-ip-list',
      label: 'no IP allowed',
      detail: 'IP access list is empty: no client can connect.',
    });
  }
  if (mysqlEnabled(service)) {
    findings.push({ code: 'mysql-enabled', label: 'MySQL endpoint on', detail: 'MySQL endpoint is enabled.' });
  }
  const attached = service.privateEndpointIds ?? [];
  const available = service.availablePrivateEndpointIds ?? [];
  if (attached.length === 0 && available.length > 0) {
    findings.push({
      code: 'no-private-endpoint',
      label: 'no private endpoint',
      detail: `No private endpoint attached, though ${available.length} ${available.length === 1 ? 'is' : 'are'} available.`,
    });
  }
  return findings;
}

const allowsText = (open: OpenFamily) =>
  open.whole ? open.named : `${open.named}, which together cover every ${FAMILY_NAMES[open.family]} address`;
