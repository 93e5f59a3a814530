// Runs every Node test file in tests/web (*.test.mjs: the wasm-vs-CLI tests and the browser tests), found by
// name, JOBS files at a time (default 2, or SHARDCALC_TEST_JOBS): a browser test file keeps the two cores of
// this project's machines about a third busy (it waits on page loads and the engine's worker), so two files side
// by side take little more than the longer of them. Each file's output is printed whole when it ends; the exit
// status is 1 when any file failed.
// Usage: node scripts/test-web.mjs [file-name-filter]
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'tests', 'web');
const jobs = Math.max(1, Number.parseInt(process.env.SHARDCALC_TEST_JOBS || '2', 10) || 1);
const filter = process.argv[2] || '';
// Largest first: the longest files start first, so the last file to end is a short one.
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.test.mjs') && name.includes(filter))
  .map((name) => join(dir, name))
  .sort((a, b) => statSync(b).size - statSync(a).size);
if (files.length === 0) {
  console.error(`test-web: no test file in tests/web matches "${filter}"`);
  process.exit(2);
}

function run(file) {
  return new Promise((resolve) => {
    const start = Date.now();
    const child = spawn(process.execPath, ['--test', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('close', (code) => {
      const seconds = ((Date.now() - start) / 1000).toFixed(0);
      const name = file.slice(root.length);
      process.stdout.write(`\n=== ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s\n${output}`);
      resolve({ name, ok: code === 0 });
    });
  });
}

const queue = [...files];
const results = [];
const start = Date.now();
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, async () => {
  while (queue.length) results.push(await run(queue.shift()));
}));
const failed = results.filter((r) => !r.ok).map((r) => r.name);
console.log(`\ntest-web: ${results.length - failed.length} of ${results.length} files passed in ` +
  `${((Date.now() - start) / 1000).toFixed(0)} s, ${jobs} at a time${failed.length ? `; failed: ${failed.join(', ')}` : ''}`);
process.exit(failed.length ? 1 : 0);
