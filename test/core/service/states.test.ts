import { describe, expect, it } from 'vitest';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';
import { postureFindings } from '../../../src/core/posture/rules.js';
import { serviceLine, stateText } from '../../../src/core/render/service.js';
import { isDeletedState, SERVICE_STATES, stateInfo } from '../../../src/core/service/states.js';
import { summaryMessages } from '../../../src/core/summary/index.js';
import { mrkdwnTexts } from '../render/block-kit.js';
import { NOW } from '../fixtures.js';

const record = (state: string) => ServiceRecordSchema.parse({ id: `id-${state}`, name: `svc-${state}`, state });

describe('service states', () => {
  it('has all 14 states of the official document, each with its own readable label and an icon', () => {
    expect(SERVICE_STATES).toHaveLength(14);
    const labels = SERVICE_STATES.map((state) => stateInfo(state).label);
    expect(new Set(labels).size).toBe(14);
    for (const state of SERVICE_STATES) {
      const { icon, label } = stateInfo(state);
      expect(icon).toMatch(/^:[a-z_]+:$/);
      expect(icon).not.toBe(':grey_question:');
      expect(label).not.toContain('_');
      expect(stateText(state)).toBe(`${icon} ${label}`);
    }
  });

  it('marks the deleted states, and only those', () => {
    expect(SERVICE_STATES.filter(isDeletedState)).toStrictEqual(['terminated', 'softdeleted']);
    expect(serviceLine(record('softdeleted'))).toContain(':wastebasket: deleted (soft-deleted)');
    expect(serviceLine(record('terminated'))).toContain(':wastebasket: deleted (terminated)');
  });

  it('makes degraded, failed and partially_running posture findings, and no other state', () => {
    const flagged = SERVICE_STATES.filter((state) => postureFindings(record(state)).length > 0);
    expect(flagged.sort()).toStrictEqual(['degraded', 'failed', 'partially_running']);
  });

  it('counts every state by its label in the summary headline, and each attention state as a warning', () => {
    const services = SERVICE_STATES.map(record);
    const { headline } = summaryMessages({ services, filters: [], drift: undefined, generatedAt: NOW });
    const text = mrkdwnTexts(headline.blocks).join('\n');
    for (const state of SERVICE_STATES) expect(text).toContain(`${stateText(state)} 1`);
    expect(text).toContain(':warning: 3 warnings on 3 services');
    expect(text).toContain('partially running 1');
  });
});
