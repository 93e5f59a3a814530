// The page scripts/run.sh serves, fetched and opened as a reader would (scripts/test-bare.sh runs it against a
// server started in a bare Debian root). Usage: node tests/bare-fetch.mjs http://127.0.0.1:PORT/
// Checks: the page, every script, stylesheet and engine module it names answer 200 with a type a browser
// accepts; the server sends the page's Content-Security-Policy; Chromium shows the default plan's verdict.
import assert from 'node:assert/strict';
import { launch } from './web/browser.mjs';

const base = process.argv[2];
if (!base) {
  console.error('usage: node tests/bare-fetch.mjs http://127.0.0.1:PORT/');
  process.exit(2);
}

async function get(path, type) {
  const response = await fetch(new URL(path, base));
  assert.equal(response.status, 200, `${path}: HTTP ${response.status}`);
  assert.match(response.headers.get('content-type') ?? '', type, `${path}: content type`);
  return response;
}

const page = await get('', /^text\/html/);
const policy = page.headers.get('content-security-policy');
assert.ok(policy?.includes("default-src"), 'the server sends the page\'s Content-Security-Policy');
const html = await page.text();
assert.match(html, /<title>[^<]*shardcalc/i);
const named = [...html.matchAll(/(?:src|href)="((?:js|engine)\/[^"]+|style\.css)"/g)].map((m) => m[1]);
assert.ok(named.some((p) => p.endsWith('main.js')), 'the page names its script');
for (const path of new Set(named)) await get(path, path.endsWith('.css') ? /^text\/css/ : /javascript/);
const core = new Uint8Array(await (await get('engine/shardcalc-core.wasm', /^application\/wasm/)).arrayBuffer());
assert.deepEqual([...core.slice(0, 4)], [0, 0x61, 0x73, 0x6d], 'the core engine is a WebAssembly module');
await get('engine/shardcalc.wasm', /^application\/wasm/);
await get('js/engine-worker.js', /javascript/);
console.log(`fetched the page and ${new Set(named).size + 3} files it loads from ${base}`);

const browser = await launch();
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  tab.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await tab.goto(base);
  await tab.waitForSelector('#status[data-state="ready"]', { timeout: 30000 });
  const verdict = await tab.textContent('.summary-verdict');
  assert.match(verdict, /Fits/, 'the default plan fits');
  assert.deepEqual(errors, []);
  console.log(`Chromium shows the default plan: ${verdict.trim()}`);
} finally {
  await browser.close();
}
