// What every browser test file shares: the served web/dist, Debian's Chromium, a page that records
// console errors, page errors, foreign requests and Content-Security-Policy violations (close() fails the
// test on any), the page's default plan as an engine scenario, and the CLI whose numbers the page must
// show. Needs web/dist and build/engine/shardcalc.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { serve } from './server.mjs';
import { launch } from './browser.mjs';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const dist = join(root, 'web', 'dist');
export const shots = join(root, 'artifacts', 'screenshots');
export const cli = join(root, 'build', 'engine', 'shardcalc');
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

// The page's defaults (web/src/js/state.js DEFAULTS) as an engine scenario: a plan that fits on one node.
export const DEFAULTS = {
  framework: 'megatron',
  model: { preset: 'llama-3.1-8b' },
  training: { seq_len: 8192, micro_batch: 1, global_batch: 64, recompute: 'selective' },
  parallel: { dp: 2, tp: 4, pp: 1, sp: true },
  hardware: { preset: 'h100-sxm-80gb' },
};
// The defaults of v=1 links (before the page opened on a plan that fits): old links keep their meaning.
export const V1_DEFAULTS = {
  framework: 'megatron',
  model: { preset: 'llama-3.1-8b' },
  training: { seq_len: 4096, micro_batch: 1 },
  parallel: { dp: 1, tp: 1, pp: 1 },
  hardware: { preset: 'h100-sxm-80gb' },
};

// A copy of `base` (the page's default plan unless given) with `changes` ({'parallel.tp': 8, …}) applied.
export function scenario(changes = {}, base = DEFAULTS) {
  const s = structuredClone(base);
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('.');
    const last = keys.pop();
    keys.reduce((o, k) => (o[k] ??= {}), s)[last] = value;
  }
  return s;
}

// The page's fragment that opens on `s`.
export const link = (s) => `#scenario=${encodeURIComponent(JSON.stringify(s))}`;

export const cliReport = (s) =>
  JSON.parse(execFileSync(cli, ['estimate', '--format', 'json', '-'], { input: JSON.stringify(s) }));

// The CLI's error value for a scenario it refuses (exit status 2, the JSON on stderr).
export function cliErrors(s) {
  try {
    execFileSync(cli, ['estimate', '-'], { input: JSON.stringify(s), stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    return JSON.parse(err.stderr.toString()).errors;
  }
  return [];
}

// Starts the server and the browser for the calling test file; `defaults`: options of every open().
export function useBrowser(defaults = {}) {
  const env = { defaults };
  before(async () => {
    await mkdir(shots, { recursive: true });
    env.server = await serve(dist);
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.close();
  });
  return env;
}

// A fresh page at `path`, ready (the engine's first answer shown). Options: viewport (DESKTOP), touch,
// colorScheme ('light'), base (the URL `path` is relative to: the server, or a file:// page), allow (where
// requests may go besides blob: and data:; base), ready (the selector waited for), everyPage (watch every
// page of the context, such as docs pages it opens, not this one alone; close() checks each still open), init (a
// function run in every page before its own scripts: Playwright's addInitScript).
export async function open(env, path = '', options = {}) {
  const o = { ...env.defaults, ...options };
  const base = o.base || env.server.url;
  const allow = o.allow || base;
  const context = await env.browser.newContext({
    viewport: o.viewport || DESKTOP, hasTouch: !!o.touch, isMobile: !!o.touch, colorScheme: o.colorScheme || 'light',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  // Every Content-Security-Policy violation a page reports (init scripts are not subject to the policy).
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sample || ''})`));
  });
  if (o.init) await context.addInitScript(o.init);
  const problems = [];
  const watch = (p) => {
    p.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`${p.url()}: console ${msg.type()}: ${msg.text()}`);
    });
    p.on('pageerror', (err) => problems.push(`${p.url()}: page error: ${err.message}`));
    p.on('request', (req) => {
      const url = req.url();
      if (!url.startsWith(allow) && !url.startsWith('blob:') && !url.startsWith('data:')) problems.push(`foreign request: ${url}`);
    });
  };
  if (o.everyPage) context.on('page', watch);
  const page = await context.newPage();
  if (!o.everyPage) watch(page);
  page.everyPage = !!o.everyPage;
  await page.goto(base + path);
  await page.waitForSelector(o.ready || '#status[data-state="ready"]', { timeout: 15000 });
  await formBuilt(page);
  await belowDrawn(page);
  page.problems = problems;
  return page;
}

// The form is built in the task after the first answer is painted (app.js buildFormAfterPaint); an embed has none.
export const formBuilt = (page) =>
  page.waitForFunction(() => !document.querySelector('#inputs:not([data-form="built"])'), null, { timeout: 15000 });

// The sections below the first screen (tables and charts) are drawn in the task after the numbers (app.js renderResults):
// waits until none is pending.
export const belowDrawn = (page) =>
  page.waitForFunction(() => document.querySelector('#results')?.dataset.below !== 'pending', null, { timeout: 15000 });

// The Gantt chart and the roofline plot are drawn once the time section nears the screen (app.js watchLowerCharts):
// scrolls there and waits until they show the page's answer.
export async function lowerChartsDrawn(page) {
  await page.locator('#gantt').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('#results')?.dataset.lowerCharts === 'drawn', null, { timeout: 15000 });
  await belowDrawn(page);
}

// The Markdown export is fetched once the Share block nears the screen (app.js watchMarkdown): scrolls there and
// returns it once it describes the page's current answer (`contains`: a text it must hold, e.g. the unit in use).
export async function markdownOutput(page, contains = '**shardcalc**') {
  await belowDrawn(page);
  await page.locator('#markdown-output').scrollIntoViewIfNeeded();
  await page.waitForFunction((text) => (document.querySelector('#markdown-output')?.value || '').includes(text), contains, { timeout: 15000 });
  return page.inputValue('#markdown-output');
}

// The Content-Security-Policy violations `page` has reported.
export const cspViolations = (page) => page.evaluate(() => window.__cspViolations);

export async function close(page) {
  assert.deepEqual(page.problems, [], 'console errors or foreign requests');
  for (const p of page.everyPage ? page.context().pages() : [page])
    assert.deepEqual(await cspViolations(p), [], `Content-Security-Policy violations on ${p.url()}`);
  await page.context().close();
}

// Waits until the page shows `value` as the raw value of report field `metric`, and the sections below the first screen.
export async function expectMetric(page, metric, value) {
  try {
    await page.waitForFunction(([m, v]) => document.querySelector(`[data-metric="${m}"]`)?.dataset.value === String(v),
      [metric, value], { timeout: 5000 });
  } catch {
    const shown = await page.getAttribute(`[data-metric="${metric}"]`, 'data-value').catch(() => 'absent');
    assert.fail(`${metric}: page shows ${shown}, CLI says ${value}`);
  }
  await belowDrawn(page); // the sections below the first screen of that result, drawn in the task after it
}
