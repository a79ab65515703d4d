import { createRequire } from 'node:module';

// src/ and dist/ both sit one level below package.json.
const pkg = createRequire(import.meta.url)('../package.json') as { name: string; version: string };

export const BOT_NAME = pkg.name;
export const BOT_VERSION = pkg.version;
export const USER_AGENT = `${BOT_NAME}/${BOT_VERSION} (Slack chat-ops for ClickHouse Cloud; node ${process.version})`;
