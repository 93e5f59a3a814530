// Embeds that fit, in real Chromium: the snippet copied from the page, pasted into another page, shows the
// embedded view at exactly its content's height (the view reports it by postMessage, the snippet's listener
// applies it), with the step time and the cost, without the Share block; a later change of content height
// (a narrower frame wraps more) resizes it again. Screenshot: artifacts/screenshots/embed-in-page.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULTS, cli, cliReport, close, link, open, shots, useBrowser } from './harness.mjs';

const env = useBrowser();

const scenario = {
  model: { preset: 'llama-3.1-70b' },
  training: { seq_len: 8192, global_batch: 512, recompute: 'selective', train_tokens: 15e12 },
  parallel: { dp: 8, tp: 8, pp: 4, sp: true },
  hardware: { preset: 'h100-sxm-80gb', price_per_gpu_hour: 2.5 },
};

test('the copied iframe fits its content, shows time and cost, and has no Share block', async () => {
  const page = await open(env, link(scenario));
  await page.click('#copy-iframe');
  const snippet = await page.inputValue('#iframe-snippet');
  assert.match(snippet, /^<iframe src="[^"]*\?embed=1#/);
  assert.match(snippet, /<script>.*shardcalc:resize.*<\/script>$/);
  // A wiki page holding the snippet between two paragraphs.
  const host = await page.context().newPage();
  await host.setContent(`<!doctype html><body style="margin:0"><p>Before</p><div id="box" style="width:900px">${snippet}</div><p>After</p></body>`);
  const frameEl = host.locator('iframe[data-shardcalc]');
  const frame = await (await frameEl.elementHandle()).contentFrame();
  await frame.waitForSelector('#status[data-state="ready"]', { timeout: 15000 });
  // The frame's height becomes its content's: nothing scrolls inside it and nothing is cut off.
  // (The host page and the frame have different origins: each side is measured by its own evaluate.)
  const fits = async () => {
    for (let i = 0; i < 50; i += 1) {
      const outer = await frameEl.evaluate((f) => f.getBoundingClientRect().height);
      const inner = await frame.evaluate(() => ({ content: document.documentElement.getBoundingClientRect().height,
        scroll: document.documentElement.scrollHeight, view: window.innerHeight }));
      if (Math.abs(outer - inner.content) <= 1 && inner.scroll <= inner.view + 1) return;
      await host.waitForTimeout(100);
    }
    assert.fail('the iframe never took its content\'s height');
  };
  await fits();
  const first = (await frameEl.boundingBox()).height;
  assert.notEqual(first, 640, 'resized from the snippet\'s initial height');
  // Step time and cost are in the embed, equal to the CLI; the Share block is not.
  const report = cliReport(scenario);
  const shown = async (metric) => frame.$eval(`[data-metric="${metric}"]`, (n) => (n.offsetParent ? n.dataset.value : 'hidden'));
  assert.equal(await shown('time.step_seconds'), String(report.time.step_seconds));
  assert.equal(await shown('training_run.cost'), String(report.training_run.cost));
  assert.match(await frame.$eval('[data-metric="training_run.cost"]', (n) => n.textContent), /^\$/);
  for (const sel of ['#copy-link', '#copy-iframe', '#copy-markdown', '#share-title', '#s-run'])
    assert.equal(await frame.isVisible(sel), false, `${sel} hidden in the embed`);
  assert.equal(await frame.isVisible('#open-full'), true);
  await host.screenshot({ path: join(shots, 'embed-in-page.png'), fullPage: true });
  // A narrower frame wraps its text onto more lines: the frame grows to match.
  await host.evaluate(() => { document.querySelector('#box').style.width = '380px'; });
  await host.waitForFunction((h) => document.querySelector('iframe[data-shardcalc]').getBoundingClientRect().height > h + 20, first);
  await fits();
  await host.close();
  await close(page);
});

test('a serving link embeds the serving answer alone: the CLI\'s figures, no request fields, no training sections', async () => {
  const request = { prompt_tokens: 2000, output_tokens: 500, concurrency: 32 };
  const page = await open(env, `?embed=1#v=2&mode=serve&serve=${encodeURIComponent(JSON.stringify(request))}`);
  await page.waitForSelector('#serving[data-state="drawn"]');
  const r = cliReport(DEFAULTS).scenario;
  const expected = JSON.parse(execFileSync(cli, ['serve', '-', '--format', 'json'],
    { input: JSON.stringify({ model: r.model, hardware: r.hardware, parallel: { tp: r.parallel.tp }, serving: request }) }));
  assert.equal(Number(await page.getAttribute('#serving-table td[data-serving="time.tpot_seconds"]', 'data-value')), expected.time.tpot_seconds);
  assert.match(await page.textContent('#serving-status'), new RegExp(`holds ${expected.memory.max_concurrency.toLocaleString('en-US')} such requests`));
  assert.equal(await page.isVisible('#serving-table'), true);
  // What is served, on what: the model's preset name, the server and the replica's GPUs as the engine counts them.
  assert.equal(expected.replica.gpus, r.parallel.tp);
  const served = `served by vLLM on ${expected.replica.gpus > 1 ? `${expected.replica.gpus} × ` : ''}${expected.replica.device}`;
  assert.equal(await page.isVisible('#serving-plan'), true);
  assert.match(await page.textContent('#serving-plan'), new RegExp(`^.+ ${served.replace(/[()]/g, '\\$&')}`));
  for (const hidden of ['.serving-fields', '#serving-launch', '#serving-plans', '#headline', '#time-section'])
    assert.equal(await page.locator(hidden).first().isVisible(), false, hidden);
  await close(page);
});
