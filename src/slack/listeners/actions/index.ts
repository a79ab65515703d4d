import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../app.js';
import * as approve from './approve.js';
import * as cancel from './cancel.js';
import * as reject from './reject.js';

export function register(app: App, deps: ListenerDeps): void {
  approve.register(app, deps);
  reject.register(app, deps);
  cancel.register(app, deps);
}
