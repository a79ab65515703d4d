import type { App } from '@slack/bolt';
import type { ListenerDeps } from '../../app.js';
import * as clickhouse from './clickhouse.js';

export function register(app: App, deps: ListenerDeps): void {
  clickhouse.register(app, deps);
}
