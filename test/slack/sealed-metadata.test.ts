/** A view's private_metadata is taken back only as the bot sealed it (the client sends it back). */
import { describe, expect, it } from 'vitest';
import type { View } from '../../src/core/render/mrkdwn.js';
import { metadataSeal } from '../../src/slack/sealed-metadata.js';

const view = (metadata: unknown): View => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Reject change' },
  blocks: [],
  private_metadata: JSON.stringify(metadata),
});

describe('metadataSeal', () => {
  const seal = metadataSeal('xoxb-test-token');
  const metadata = { requestId: 'CR-0123456789', channelId: 'C0BILL' };

  it('opens what it sealed, as it was written (and the sealed metadata stays JSON)', () => {
    const sealed = seal.seal(view(metadata)).private_metadata ?? '';
    expect(JSON.parse(sealed)).toMatchObject(metadata);
    expect(seal.open(sealed)).toBe(JSON.stringify(metadata));
  });

  it('refuses metadata altered, unsealed, or sealed under another token', () => {
    const sealed = JSON.parse(seal.seal(view(metadata)).private_metadata ?? '') as Record<string, unknown>;
    expect(seal.open(JSON.stringify({ ...sealed, channelId: 'C0CHANNEL' }))).toBeUndefined();
    expect(seal.open(JSON.stringify(metadata))).toBeUndefined();
    expect(seal.open(JSON.stringify({ ...sealed, seal: 'AAAA' }))).toBeUndefined();
    expect(seal.open('not json')).toBeUndefined();
    const other = metadataSeal('xoxb-another-token').seal(view(metadata)).private_metadata ?? '';
    expect(seal.open(other)).toBeUndefined();
  });

  it('leaves a view without metadata as it is', () => {
    const bare: View = { type: 'modal', title: { type: 'plain_text', text: 'Password' }, blocks: [] };
    expect(seal.seal(bare)).toBe(bare);
  });
});
