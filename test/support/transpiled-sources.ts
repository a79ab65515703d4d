/**
 * The bot's sources as plain JavaScript, laid out as `npm run build` lays out dist/ (src/x.ts ->
 * src/x.js, the .js and asset files copied, package.json and node_modules beside them), so a test
 * can start the bot as production does: `node …/src/main.js`, no loader. Under `--import tsx` a
 * child bot spent 3.0 s of CPU importing its modules against 1.4 s as plain JavaScript (2-core
 * machine, 2026-11-29), and the reliability tests start a dozen children per run. esbuild (the
 * transpiler tsx itself uses) writes the whole tree in a fraction of a second, once per worker;
 * types are not checked here, `tsc` does that in `npm run checks`.
 */
import { cpSync, mkdtempSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let transpiled: Promise<string> | undefined;

/** The directory holding the transpiled tree (its `src/main.js` is the bot); made on first use. */
export function transpiledSources(): Promise<string> {
  transpiled ??= transpile();
  return transpiled;
}

async function transpile(): Promise<string> {
  // Removed with the run's directory when the run ends (test/support/temp-root.ts).
  const out = mkdtempSync(join(inject('runTempDir'), 'transpiled-'));
  cpSync(join(ROOT, 'src'), join(out, 'src'), { recursive: true, filter: (path) => !path.endsWith('.ts') });
  await build({
    entryPoints: [join(ROOT, 'src/**/*.ts')],
    outbase: join(ROOT, 'src'),
    outdir: join(out, 'src'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
  });
  // `"type": "module"` and the package's version (src/version.ts reads ../package.json), and its dependencies.
  symlinkSync(join(ROOT, 'package.json'), join(out, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'), 'dir');
  return out;
}
