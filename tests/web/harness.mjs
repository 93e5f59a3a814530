// What every browser test file shares: the served web/dist, Debian's Chromium, a page that records
// console errors, page errors, foreign requests and Content-Security-Policy violations (close() fails the
// test on any), and the CLI whose numbers the page must show. Needs web/dist and build/engine/shardcalc.
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

export const cliReport = (scenario) =>
  JSON.parse(execFileSync(cli, ['estimate', '--format', 'json', '-'], { input: JSON.stringify(scenario) }));

// The CLI's error value for a scenario it refuses (exit status 2, the JSON on stderr).
export function cliErrors(scenario) {
  try {
    execFileSync(cli, ['estimate', '-'], { input: JSON.stringify(scenario), stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    return JSON.parse(err.stderr.toString()).errors;
  }
  return [];
}

// Starts the server and the browser for the calling test file.
export function useBrowser() {
  const env = {};
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

// A fresh page at `path`, ready (the engine's first answer shown); options: viewport, touch, ready selector.
export async function open(env, path = '', options = {}) {
  const context = await env.browser.newContext({
    viewport: options.viewport || DESKTOP, hasTouch: !!options.touch, isMobile: !!options.touch, colorScheme: 'light',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(env.server.url) && !url.startsWith('blob:') && !url.startsWith('data:')) problems.push(`foreign request: ${url}`);
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(env.server.url + path);
  await page.waitForSelector(options.ready || '#status[data-state="ready"]', { timeout: 15000 });
  page.problems = problems;
  return page;
}

export async function close(page) {
  assert.deepEqual(page.problems, [], 'console errors or foreign requests');
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'Content-Security-Policy violations');
  await page.context().close();
}

// Waits until the page shows `value` as the raw value of report field `metric`.
export async function expectMetric(page, metric, value) {
  try {
    await page.waitForFunction(([m, v]) => document.querySelector(`[data-metric="${m}"]`)?.dataset.value === String(v),
      [metric, value], { timeout: 5000 });
  } catch {
    const shown = await page.getAttribute(`[data-metric="${metric}"]`, 'data-value').catch(() => 'absent');
    assert.fail(`${metric}: page shows ${shown}, CLI says ${value}`);
  }
}
