// Page budget, reported (not asserted; the figures depend on the machine and its load): the bytes
// the page downloads when it opens, raw, gzipped and brotli-compressed, and the time from navigation
// to the first complete result in headless Chromium, over 9 fresh loads (no cache), after
// one load that counts the bytes.
// Budgets (issue 10): 160 KB (160,000 bytes) compressed, first result within 300 ms (median).
// The byte budget is compared with the gzip total: gzip is what every static host serves; brotli
// (smaller) is shown beside it, since many hosts and CDNs serve that too.
// Run after scripts/build-web.sh:  node scripts/budget.mjs [DIST]   (default web/dist)
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { serve } from '../tests/web/server.mjs';
import { launch } from '../tests/web/browser.mjs';

const BUDGET_BYTES = 160_000;
const BUDGET_MS = 300;
const LOADS = 9;
const LINK_LOADS = 5;
const BUDGET_LINK_MS = 500;

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = process.argv[2] ? resolve(process.argv[2]) : join(root, 'web', 'dist');
// Maximum levels, as a host that precompresses would use (gzip -9, brotli -q 11).
const gzip = (body) => gzipSync(body, { level: 9 }).length;
const brotli = (body) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

const server = await serve(dist);
const browser = await launch();
// Per timed load, from navigation: the result shown (#status ready), painted (the browser's paint of it), the
// form built and the sections below the first screen drawn (both in tasks after the result is painted: app.js).
const moments = { shown: [], painted: [], form: [], below: [] };
// What the page downloads, from one load of its own: reading each response's body through the DevTools
// protocol costs CPU while the page loads, so the timed loads do not.
let files = new Map();
// One fresh load of `url` (a new context: nothing cached). `counting`: read every response's body into `files`;
// otherwise returns the moments [shown, painted, form, below] in ms from navigation.
async function load(url, counting = false) {
  const context = await browser.newContext();
  const page = await context.newPage();
  // Records the moments the page first declares a complete result, builds its form and draws the sections below.
  await page.addInitScript(() => {
    // Says so on the console once every moment is recorded (the loop below waits for it).
    const tell = () => {
      if (window.__told || !(window.__paintedMs && window.__formMs && window.__belowMs)) return;
      window.__told = true;
      setTimeout(() => console.log('shardcalc-budget: all moments recorded'));
    };
    // Painted: when the browser painted the summary's verdict (Element Timing: summary.js marks it).
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.identifier === 'result') window.__paintedMs ??= e.renderTime || e.loadTime;
      tell();
    }).observe({ type: 'element', buffered: true });
    new MutationObserver((_, observer) => {
      if (!window.__firstResultMs && document.querySelector('#status[data-state="ready"]')) window.__firstResultMs = performance.now();
      if (!window.__formMs && document.querySelector('#inputs[data-form="built"]')) window.__formMs = performance.now();
      if (!window.__belowMs && document.querySelector('#results[data-below="drawn"]')) window.__belowMs = performance.now();
      if (window.__formMs && window.__belowMs) observer.disconnect();
      tell();
    }).observe(document, { subtree: true, attributeFilter: ['data-state', 'data-form', 'data-below'] }); // the least work while the page loads
  });
  const responses = new Map(); // by URL: what a browser cache would fetch once
  const bodies = [];
  if (counting) {
    page.on('response', (res) => {
      bodies.push(res.body().then((body) => responses.set(res.url(), body), () => {})); // redirects have no body
    });
  }
  // Waits for the page's console message, not with waitForFunction: that injects Playwright's script into the
  // page (about 25 ms of the main thread, measured) while it loads, which no reader's browser runs.
  const recorded = page.waitForEvent('console', { predicate: (m) => m.text().startsWith('shardcalc-budget:'), timeout: 30000 });
  await page.goto(url, { waitUntil: 'commit' });
  await recorded;
  let at = null;
  if (counting) {
    // Everything the page fetches when it opens counts, also what it might fetch after the first result.
    await page.waitForLoadState('networkidle');
    await Promise.all(bodies);
    files = responses;
  } else at = await page.evaluate(() => [window.__firstResultMs, window.__paintedMs, window.__formMs, window.__belowMs]);
  await context.close();
  return at;
}
await load(server.url, true);
for (let i = 0; i < LOADS; i += 1) {
  const at = await load(server.url);
  Object.values(moments).forEach((list, k) => list.push(at[k]));
}
// Links whose plans only the whole engine evaluates (a TPU's XLA program, an LSTM): the page fetches and starts it
// before their first result (js/early.js starts that as the page opens when the link names such a plan).
const WHOLE_ENGINE_LINKS = {
  'TPU (BERT-base on a TPU v3 core)': { model: { preset: 'bert-base' }, training: { seq_len: 512, micro_batch: 64, dtype: 'fp32' }, hardware: { preset: 'tpu-v3' } },
  'LSTM (DeepFlow\'s 38B LSTM)': { framework: 'pytorch', model: { preset: 'deepflow-lstm-38b' },
    training: { seq_len: 20, micro_batch: 512, dtype: 'fp32', optimizer: 'sgd', grad_clip: true }, hardware: { preset: 'deepflow-300w' } },
};
const linkMoments = {};
for (const [name, scenario] of Object.entries(WHOLE_ENGINE_LINKS)) {
  linkMoments[name] = [];
  for (let i = 0; i < LINK_LOADS; i += 1)
    linkMoments[name].push((await load(`${server.url}#scenario=${encodeURIComponent(JSON.stringify(scenario))}`))[1]);
}
await browser.close();
await server.close();

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
const row = (name, raw, gz, br) => `${name.padEnd(34)} ${String(raw).padStart(8)} B ${String(gz).padStart(8)} B gzip ${String(br).padStart(8)} B brotli`;
let raw = 0;
let gz = 0;
let br = 0;
for (const [url, body] of files) {
  const [g, b] = [gzip(body), brotli(body)];
  raw += body.length;
  gz += g;
  br += b;
  console.log(row(url.replace(server.url, '/'), body.length, g, b));
}
console.log(`downloaded when the page opens: ${files.size} files, ${kb(raw)} raw, ${kb(gz)} gzip, ${kb(br)} brotli`);
console.log(`  budget ${kb(BUDGET_BYTES)} compressed, compared with gzip: ${gz <= BUDGET_BYTES ? 'within' : 'OVER'} (gzip ${kb(gz)}; brotli ${kb(br)}, ${br <= BUDGET_BYTES ? 'within' : 'over'})`);

// Loaded only when the reader runs a plan search or imports a config.json (web/src/js/engine-worker.js),
// not when the page opens.
let later = [0, 0, 0];
for (const file of ['engine/shardcalc.mjs', 'engine/shardcalc.wasm']) {
  const body = await readFile(join(dist, file)).catch(() => null);
  if (!body || files.has(server.url + file)) continue;
  const sizes = [body.length, gzip(body), brotli(body)];
  later = later.map((x, i) => x + sizes[i]);
  console.log(row(`/${file} (later)`, ...sizes));
}
if (later[0]) console.log(`loaded by the first plan search or config import: ${kb(later[0])} raw, ${kb(later[1])} gzip, ${kb(later[2])} brotli`);

// The budget is for the result painted, what a reader sees.
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const painted = [...moments.painted].sort((a, b) => a - b);
console.log(`navigation to first complete result painted: median ${median(painted).toFixed(0)} ms, best ${painted[0].toFixed(0)} ms, worst ${painted[painted.length - 1].toFixed(0)} ms over ${LOADS} loads ` +
  `(budget ${BUDGET_MS} ms: ${median(painted) <= BUDGET_MS ? 'within' : 'OVER'})`);
console.log(`  medians: result shown ${median(moments.shown).toFixed(0)} ms, painted ${median(painted).toFixed(0)} ms, ` +
  `form built ${median(moments.form).toFixed(0)} ms, sections below it drawn ${median(moments.below).toFixed(0)} ms`);
for (const [name, list] of Object.entries(linkMoments))
  console.log(`a link that needs the whole engine, ${name}: first result painted, median ${median(list).toFixed(0)} ms over ` +
    `${list.length} loads (budget ${BUDGET_LINK_MS} ms: ${median(list) <= BUDGET_LINK_MS ? 'within' : 'OVER'})`);
