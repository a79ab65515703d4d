import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../app.js';
import * as editService from './edit-service.js';

export function register(app: App, deps: ListenerDeps): void {
  editService.register(app, deps);
}
