// @ts-check
/**
 * Copies the Lua scripts (src/**\/*.lua) beside the compiled JavaScript, which reads them from
 * its own folder (src/store/redis/lua-script.ts): tsc copies only what it compiles.
 * Usage: node scripts/copy-lua.js <outDir>, where <outDir> holds what tsc compiled from src/
 * (dist for the build, dist-bench/src for the bench).
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';

const outDir = process.argv[2];
if (!outDir) {
  process.stderr.write('usage: node scripts/copy-lua.js <outDir>\n');
  process.exit(2);
}
let copied = 0;
for (const file of readdirSync('src', { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.lua')) continue;
  mkdirSync(join(outDir, dirname(file)), { recursive: true });
  copyFileSync(join('src', file), join(outDir, file));
  copied += 1;
}
if (copied === 0) {
  process.stderr.write('copy-lua: no .lua file under src/ (run from the project root)\n');
  process.exit(1);
}
