import type { App } from '@slack/bolt';
import { ACTION_REJECT } from '../../../core/render/change.js';
import type { ListenerDeps } from '../../app.js';
import { decisionListener } from './decision.js';

export function register(app: App, deps: ListenerDeps): void {
  app.action(ACTION_REJECT, decisionListener('reject', deps));
}
