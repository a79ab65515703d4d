/**
 * The same words and figures wherever a service is shown (issue 41): `list`, `show`, the summary,
 * the cost report and change requests say replicas, idle scaling, versions, entries added or
 * removed, short ids and posture marks one way each.
 */
import { describe, expect, it } from 'vitest';
import { listBlocks, serviceBlocks, serviceLine } from '../../../src/core/render/service.js';
import { serviceSummaryLine } from '../../../src/core/summary/render.js';
import { changeLine } from '../../../src/core/render/change.js';
import { changeSummary } from '../../../src/core/change/summary.js';
import { NOW, service, SERVICE_ID } from '../fixtures.js';
import { mrkdwnTexts } from './block-kit.js';

const show = (overrides: Record<string, unknown> = {}) => mrkdwnTexts(serviceBlocks(service(overrides))).join('\n');
const field = (text: string, label: string) => new RegExp(`\\*${label}\\*\\n([^\\n]*)`).exec(text)?.[1];

describe('one way to say it', () => {
  it('"Replicas: 3", the autoscaling mode on the memory line', () => {
    const text = show();
    expect(field(text, 'Replicas')).toBe('3');
    expect(field(text, 'Memory')).toMatch(/GB per replica.*\(vertical autoscaling\)$/);
  });

  it('"Idle scaling: off" in show, "idle scaling: off" in the summary line', () => {
    expect(field(show({ idleScaling: false }), 'Idle scaling')).toBe('off');
    expect(field(show({ idleScaling: true, idleTimeoutMinutes: 15 }), 'Idle scaling')).toBe('on after 15 min');
    expect(serviceSummaryLine(service({ idleScaling: false }))).toContain(' · idle scaling: off');
  });

  it('one version format: v24.3.1.2672 in show, list and the summary', () => {
    const record = service();
    expect(field(show(), 'Version')).toBe('v24.3.1.2672');
    expect(serviceLine(record)).toContain(' · v24.3.1.2672 · ');
    expect(serviceSummaryLine(record)).toContain(' · v24.3.1.2672 · ');
    // A version the API already writes with a v is not shown as vv.
    expect(field(show({ clickhouseVersion: 'v25.1' }), 'Version')).toBe('v25.1');
  });

  it('+ and − for entries added and removed, in request lines and one-line summaries', () => {
    const added = { field: 'tags', label: 'Tag', before: 'absent', after: 'env=prod' } as const;
    const removed = {
      field: 'ipAccessList',
      label: 'IP access',
      before: '10.0.0.0/8 (office)',
      after: 'removed',
    } as const;
    const detached = {
      field: 'privateEndpointIds',
      label: 'Private endpoint',
      before: 'pe-1',
      after: 'detached',
    } as const;
    expect(changeLine(added)).toBe('• *Tag*: + `env=prod`');
    expect(changeLine(removed)).toBe('• *IP access*: − `10.0.0.0/8 (office)`');
    expect(changeSummary([added, removed, detached])).toBe(
      'Tag: + env=prod; IP access: − 10.0.0.0/8 (office); Private endpoint: − pe-1',
    );
    // A value that changes keeps its arrow.
    expect(changeLine({ field: 'name', label: 'Name', before: 'a', after: 'b' })).toBe('• *Name*: `a` → `b`');
  });

  it('short ids (8 characters) in list and the summary; the full id in show', () => {
    const record = service();
    const short = `\`${SERVICE_ID.slice(0, 8)}\``;
    expect(serviceLine(record)).toContain(`*orders-prod*  ${short}`);
    expect(serviceSummaryLine(record)).toContain(`*orders-prod*  ${short}`);
    expect(show()).toContain(`ID \`${SERVICE_ID}\``);
  });

  it('the same posture mark in list and in the summary', () => {
    const open = service({ ipAccessList: [{ source: '0.0.0.0/0' }] });
    const mark = / {2}:warning: .*$/.exec(serviceLine(open))?.[0];
    expect(mark).toBe('  :warning: open to the internet');
    expect(serviceSummaryLine(open).endsWith(mark ?? '-')).toBe(true);
    expect(mrkdwnTexts(listBlocks([open], [], NOW)).join('\n')).toContain(mark);
    expect(serviceSummaryLine(service())).not.toContain(':warning:');
  });
});
