import { createRequire } from 'node:module';

// src/ and dist/ sit one level below package.json; the benchmarks' build (dist-bench/src/) two.
const require = createRequire(import.meta.url);
type PackageJson = { name: string; version: string };
const pkg = packageJson();

function packageJson(): PackageJson {
  try {
    return require('../package.json') as PackageJson;
  } catch {
    return require('../../package.json') as PackageJson;
  }
}

export const BOT_NAME = pkg.name;
export const BOT_VERSION = pkg.version;
export const USER_AGENT = `${BOT_NAME}/${BOT_VERSION} (Slack chat-ops for ClickHouse Cloud; node ${process.version})`;
