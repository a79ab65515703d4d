// @ts-check
/**
 * The static checks of `npm test`, side by side: prettier, eslint (type-aware) and both tsc runs
 * each wait on one core for much of their time, so on a 2-core machine running them together
 * takes about as long as eslint alone. Each one's output is printed whole when it ends, with its
 * time; the exit status is 1 when any of them failed.
 */
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

/** @type {Array<[name: string, command: string, args: string[]]>} */
const CHECKS = [
  ['format', 'prettier', ['--check', '.']],
  ['lint', 'eslint', ['.']],
  ['types', 'tsc', ['--noEmit']],
  ['types (page)', 'tsc', ['--noEmit', '-p', 'tsconfig.page.json']],
];

/** @returns {Promise<boolean>} whether the check passed */
function run(/** @type {string} */ name, /** @type {string} */ command, /** @type {string[]} */ args) {
  const started = performance.now();
  return new Promise((resolve) => {
    // npm puts node_modules/.bin on PATH for its scripts.
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const finish = (/** @type {boolean} */ ok, /** @type {string} */ note = '') => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(
        `\n── ${name} (${command} ${args.join(' ')}): ${ok ? 'ok' : 'FAILED'} in ${seconds} s${note}\n`,
      );
      process.stdout.write(Buffer.concat(output));
      resolve(ok);
    };
    child.on('error', (error) => finish(false, `: ${error.message}`));
    child.on('close', (code) => finish(code === 0));
  });
}

const results = await Promise.all(CHECKS.map(([name, command, args]) => run(name, command, args)));
process.exitCode = results.every(Boolean) ? 0 : 1;
