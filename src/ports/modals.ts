import type { View } from '../core/render/mrkdwn.js';

/** Opening and filling modals; trigger ids expire 3 s after the command, so open comes first. */
export interface Modals {
  open(triggerId: string, view: View): Promise<{ viewId: string; hash?: string }>;
  update(viewId: string, view: View, hash?: string): Promise<void>;
}
