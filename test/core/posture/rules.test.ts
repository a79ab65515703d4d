import { describe, expect, it } from 'vitest';
import { postureFindings, type PostureCode } from '../../../src/core/posture/rules.js';
import { service } from '../fixtures.js';

const codes = (overrides: Record<string, unknown>): PostureCode[] =>
  postureFindings(service(overrides)).map((f) => f.code);

describe('postureFindings', () => {
  it('finds nothing on a well-kept service', () => {
    expect(postureFindings(service())).toStrictEqual([]);
  });

  it.each(['0.0.0.0/0', '::/0'])('flags %s as open to the internet, naming the source', (source) => {
    const findings = postureFindings(service({ ipAccessList: [{ source: '10.0.0.0/8' }, { source }] }));
    expect(findings.map((f) => f.code)).toStrictEqual(['open-to-world']);
    expect(findings[0]?.label).toBe('open to the internet');
    expect(findings[0]?.detail).toContain(source);
  });

  it.each(['10.0.0.0/0', '0::/0'])('flags %s (a /0 block admits every address) as open to the internet', (source) => {
    expect(codes({ ipAccessList: [{ source }] })).toStrictEqual(['open-to-world']);
  });

  it('names both open sources when both are there', () => {
    const [finding] = postureFindings(service({ ipAccessList: [{ source: '0.0.0.0/0' }, { source: '::/0' }] }));
    expect(finding?.detail).toContain('0.0.0.0/0 and ::/0');
  });

  it('flags a very broad but not open block, naming it', () => {
    const findings = postureFindings(service({ ipAccessList: [{ source: '0.0.0.0/1' }, { source: '2000::/3' }] }));
    expect(findings.map((f) => f.code)).toStrictEqual(['broad-ip-entry']);
    expect(findings[0]?.detail).toContain('0.0.0.0/1, 2000::/3');
  });

  it('does not flag a /8 or a /16', () => {
    expect(codes({ ipAccessList: [{ source: '10.0.0.0/8' }, { source: '2001:db8::/16' }] })).toStrictEqual([]);
  });

  it.each([
    [['0.0.0.0/1', '128.0.0.0/1'], 'IPv4'],
    [['::/1', '8000::/1'], 'IPv6'],
    [['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/2'], 'IPv4'],
  ])('flags %j, which together admit every address, as open to the internet', (sources, family) => {
    const findings = postureFindings(service({ ipAccessList: sources.map((source) => ({ source })) }));
    expect(findings.map((f) => f.code)).toStrictEqual(['open-to-world']);
    expect(findings[0]?.detail).toBe(
      `IP access list allows ${sources.join(' + ')}, which together cover every ${family} address: anyone on the internet can try to connect.`,
    );
  });

  it('flags an explicitly empty IP access list', () => {
    const findings = postureFindings(service({ ipAccessList: [] }));
    expect(findings.map((f) => f.code)).toStrictEqual(['empty-ip-list']);
    expect(findings[0]?.detail).toMatch(/no client can connect/);
  });

  it('does not call an absent IP access list empty (the record did not say)', () => {
    expect(codes({ ipAccessList: undefined })).toStrictEqual([]);
  });

  it('does not call an unreadable IP access list empty', () => {
    expect(codes({ ipAccessList: 'nope' })).toStrictEqual([]);
  });

  it('flags an enabled MySQL endpoint, and not a disabled one', () => {
    expect(codes({ endpoints: [{ protocol: 'mysql' }] })).toStrictEqual(['mysql-enabled']);
    expect(codes({ endpoints: [{ protocol: 'mysql', enabled: false }] })).toStrictEqual([]);
  });

  it('flags no private endpoint attached when some are available, counting them', () => {
    const one = postureFindings(service({ privateEndpointIds: [], availablePrivateEndpointIds: ['pe-1'] }));
    expect(one.map((f) => f.code)).toStrictEqual(['no-private-endpoint']);
    expect(one[0]?.detail).toContain('1 is available');
    const two = postureFindings(
      service({ privateEndpointIds: undefined, availablePrivateEndpointIds: ['pe-1', 'pe-2'] }),
    );
    expect(two[0]?.detail).toContain('2 are available');
  });

  it('does not flag a missing private endpoint when none is available', () => {
    expect(codes({ privateEndpointIds: [], availablePrivateEndpointIds: [] })).toStrictEqual([]);
    expect(codes({ privateEndpointIds: undefined, availablePrivateEndpointIds: undefined })).toStrictEqual([]);
  });

  it('does not flag TDE off: it can only be chosen at creation, in Enterprise organizations', () => {
    expect(codes({ hasTransparentDataEncryption: false })).toStrictEqual([]);
    expect(codes({ hasTransparentDataEncryption: undefined })).toStrictEqual([]);
  });

  it.each([
    ['degraded', 'state-degraded'],
    ['failed', 'state-failed'],
    ['partially_running', 'state-partially-running'],
  ])('flags the state %s', (state, code) => {
    expect(codes({ state })).toStrictEqual([code]);
  });

  it.each([
    'starting',
    'stopping',
    'terminating',
    'softdeleting',
    'awaking',
    'provisioning',
    'running',
    'stopped',
    'terminated',
    'softdeleted',
    'idle',
    'hasOwnProperty',
    'constructor',
  ])('does not flag the state %s', (state) => {
    expect(codes({ state })).toStrictEqual([]);
  });

  it('reports every finding of a risky service', () => {
    expect(
      codes({
        state: 'failed',
        ipAccessList: [{ source: '0.0.0.0/0' }],
        endpoints: [{ protocol: 'mysql' }],
        privateEndpointIds: [],
        hasTransparentDataEncryption: false,
      }),
    ).toStrictEqual(['state-failed', 'open-to-world', 'mysql-enabled', 'no-private-endpoint']);
  });
});
