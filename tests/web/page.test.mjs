// The page in real Chromium (Debian's, driven by playwright-core): every number must be the
// CLI's, links must round-trip, and nothing may reach another origin. Screenshots go to
// artifacts/screenshots/. Needs web/dist (scripts/build-web.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { DEFAULTS, V1_DEFAULTS, cli, cliReport, close, dist, expectMetric, link, lowerChartsDrawn, open, root, shots, useBrowser } from './harness.mjs';
import { metrics, expectStages, plan70b, fillPlan70b, expectTime, openMore } from './page-checks.mjs';
import { duration } from '../../web/src/js/format.js';

// Playwright's default viewport (1280×720), the size these tests were written at, unless one is given.
const env = useBrowser({ viewport: { width: 1280, height: 720 } });

test('defaults load and match the CLI', async () => {
  const page = await open(env);
  const report = cliReport(DEFAULTS);
  await expectStages(page, report);
  await expectMetric(page, 'derived.world_size', report.derived.world_size);
  const shown = await metrics(page);
  for (const [metric, value] of Object.entries(shown))
    assert.ok(value !== undefined && !/NaN|Infinity|undefined/.test(value), `${metric} = ${value}`);
  const text = await page.textContent('body');
  assert.ok(!/\bNaN\b|Infinity|undefined/.test(text), 'no NaN/Infinity/undefined on the page');
  await page.screenshot({ path: join(shots, 'default-light.png'), fullPage: true });
  await close(page);
});

test('LLaMA-3.1-70B on H100s, tp=8 pp=4, then recompute and ZeRO: per-stage numbers equal the CLI', async () => {
  const page = await open(env);
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  const scenario = structuredClone(DEFAULTS);
  scenario.model.preset = 'llama-3.1-70b';
  Object.assign(scenario.parallel, { tp: 8, pp: 4 });
  const report = cliReport(scenario);
  assert.equal(report.memory.stages.length, 4);
  await expectStages(page, report);
  assert.equal(await page.locator('#stage-table tbody tr').count(), 4);
  assert.ok((await page.locator('#module-table [data-metric$=".activation_bytes"]').count()) > 5);
  await expectMetric(page, 'modules.4.activation_bytes', report.modules[4].activation_bytes);

  await page.selectOption('#f-training-recompute', 'full');
  scenario.training.recompute = 'full';
  await expectStages(page, cliReport(scenario));

  await page.selectOption('#f-framework', 'deepspeed');
  await page.selectOption('#f-parallel-zero', '1');
  scenario.framework = 'deepspeed';
  scenario.parallel.zero = 1;
  await expectStages(page, cliReport(scenario));
  await page.screenshot({ path: join(shots, 'llama-70b-tp8-pp4.png'), fullPage: true });
  await close(page);
});

test('a copied share link opens elsewhere with identical numbers', async () => {
  const page = await open(env);
  await page.selectOption('#f-model-preset', 'llama-3.1-70b');
  await page.fill('#f-parallel-tp', '8');
  await page.fill('#f-parallel-pp', '4');
  await page.selectOption('#unit', 'GB');
  const scenario = structuredClone(DEFAULTS);
  scenario.model.preset = 'llama-3.1-70b';
  Object.assign(scenario.parallel, { tp: 8, pp: 4 });
  await expectStages(page, cliReport(scenario));
  await page.click('#copy-link');
  await page.waitForFunction(() => document.querySelector('#share-url')?.value.includes('#'));
  const link = await page.inputValue('#share-url');
  assert.ok(link.startsWith(env.server.url), link);
  assert.ok(link.length < 200, `compact link: ${link}`);
  const before = await metrics(page);
  const shownText = await page.textContent('#stage-table');

  const other = await open(env, link.slice(env.server.url.length));
  await expectStages(other, cliReport(scenario));
  assert.deepEqual(await metrics(other), before);
  assert.equal(await other.textContent('#stage-table'), shownText, 'same unit and formatting');
  assert.equal(await other.inputValue('#f-parallel-tp'), '8');
  await close(other);
  await close(page);
});

test('#scenario= links take the engine public field names', async () => {
  const scenario = JSON.parse(await readFile(join(root, 'examples', 'llama-3.1-70b-h100.json'), 'utf8'));
  const page = await open(env, `#scenario=${encodeURIComponent(JSON.stringify(scenario))}`);
  await expectStages(page, cliReport(scenario));
  await close(page);
});

test('embed mode: compact results, no Share block and so no Markdown', async () => {
  const scenario = { model: { preset: 'llama-2-13b' }, parallel: { tp: 2, pp: 2 }, training: { seq_len: 4096 } };
  const page = await open(env, `?embed=1#scenario=${encodeURIComponent(JSON.stringify(scenario))}`, { viewport: { width: 800, height: 600 } });
  assert.ok(await page.evaluate(() => document.body.classList.contains('embed')));
  await expectStages(page, cliReport(scenario));
  assert.equal(await page.isVisible('#f-parallel-tp'), false, 'no form in embed mode');
  // The embed is what was shared: no Share block, only the way to the full page (tests/web/page-embed.test.mjs).
  assert.equal(await page.isVisible('#copy-iframe'), false);
  assert.equal(await page.isVisible('#open-full'), true);
  // The Markdown is written for the Share block, which the embed does not have (nor fetches the whole engine for).
  await page.waitForSelector('#results[data-below="drawn"]');
  assert.equal(await page.inputValue('#markdown-output'), '');
  await page.screenshot({ path: join(shots, 'embed.png') });
  await close(page);
});

test('the single-file build works opened from file://', async () => {
  const file = pathToFileURL(join(dist, 'shardcalc-standalone.html')).href;
  const page = await open(env, '', { base: file });
  await expectStages(page, cliReport(DEFAULTS));
  // The engine runs in the blob: worker, not on the main thread (the glue once failed there: "Invalid URL").
  assert.equal(await page.getAttribute('body', 'data-engine-thread'), 'worker');
  await page.fill('#f-parallel-tp', '2');
  const scenario = structuredClone(DEFAULTS);
  scenario.parallel.tp = 2;
  await expectStages(page, cliReport(scenario));
  await page.screenshot({ path: join(shots, 'standalone-file.png') });
  await close(page);
});

test('a malformed link shows what was wrong and falls back to the defaults', async () => {
  for (const fragment of ['#scenario=%7Bnot-json', '#v=9&parallel.tp=2']) {
    const page = await open(env, fragment);
    const message = await page.textContent('#link-error');
    assert.ok(message && message.trim().length > 10, `${fragment}: ${message}`);
    await expectStages(page, cliReport(DEFAULTS));
    await close(page);
  }
});

test('a link with one bad field loads every other field and names the bad one; unknown keys are ignored', async () => {
  // v=1: the old defaults, with the readable field applied.
  let page = await open(env, '#v=1&parallel.tp=eight&parallel.dp=2');
  assert.match(await page.textContent('#link-error'), /parallel\.tp/);
  const old = structuredClone(V1_DEFAULTS);
  old.parallel.dp = 2;
  await expectStages(page, cliReport(old));
  await close(page);
  page = await open(env, '#v=2&bogus.key=1&parallel.pp=2&model.preset=llama-3.1-70b');
  assert.match(await page.textContent('#link-error'), /bogus\.key.*ignored/);
  const plan = structuredClone(DEFAULTS);
  plan.parallel.pp = 2;
  plan.model.preset = 'llama-3.1-70b';
  await expectStages(page, cliReport(plan));
  // The share link drops what could not be read and keeps the rest.
  const shared = await page.inputValue('#share-url');
  assert.doesNotMatch(shared, /bogus/);
  assert.match(shared, /parallel\.pp=2/);
  await close(page);
});

test('a bad input shows the engine error next to its field', async () => {
  const page = await open(env);
  await page.fill('#f-parallel-tp', '3');
  const error = page.locator('[data-error-for="/parallel/tp"]');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /must divide/);
  assert.equal(await page.getAttribute('#f-parallel-tp', 'aria-invalid'), 'true');
  await page.waitForSelector('#status[data-state="error"]');
  await page.screenshot({ path: join(shots, 'input-error.png') });
  await page.fill('#f-parallel-tp', '2');
  await page.waitForSelector('#status[data-state="ready"]');
  assert.equal(await error.isVisible().catch(() => false), false);
  await close(page);
});

test('a number typed beyond a double (1e400) is an error at its field, never an emptied field', async () => {
  const page = await open(env);
  assert.equal(await page.getAttribute('body', 'data-engine-thread'), 'worker');
  const tp = page.locator('#f-parallel-tp');
  await tp.fill('');
  await tp.pressSequentially('1e400');
  const error = page.locator('[data-error-for="/parallel/tp"]');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.textContent(), /must be an integer from 1 to \d+, got "(1e400|not a finite number)"/);
  await page.waitForSelector('#status[data-state="error"]');
  await tp.fill('2');
  await page.waitForSelector('#status[data-state="ready"]');
  await close(page);
});

test('a Hugging Face config.json fills the model fields', async () => {
  const page = await open(env);
  const config = {
    architectures: ['MistralForCausalLM'], model_type: 'mistral', hidden_size: 4096, intermediate_size: 14336,
    num_hidden_layers: 32, num_attention_heads: 32, num_key_value_heads: 8, vocab_size: 32000,
    max_position_embeddings: 32768, hidden_act: 'silu', rms_norm_eps: 1e-5, tie_word_embeddings: false,
    rope_theta: 10000.0, sliding_window: 4096, torch_dtype: 'bfloat16', some_new_knob: 3,
  };
  await page.fill('#hf-config', JSON.stringify(config));
  await page.click('#hf-import');
  // The vocabulary is the field that tells Mistral from the default Llama 3.1 8B (same layers, heads, FFN).
  await page.waitForFunction(() => document.querySelector('#f-model-vocab')?.value === '32000');
  assert.equal(await page.inputValue('#f-model-layers'), '32');
  assert.equal(await page.inputValue('#f-model-kv_heads'), '8');
  assert.equal(await page.inputValue('#f-model-ffn_hidden'), '14336');
  assert.match(await page.textContent('#hf-import-message'), /some_new_knob/);
  const mistral = cliReport({ ...DEFAULTS, model: { preset: 'mistral-7b' } });
  await expectMetric(page, 'parameters.total', mistral.parameters.total);
  await close(page);
});

test('dark theme and a phone screen render', async () => {
  const dark = await open(env, '', { colorScheme: 'dark' });
  await dark.screenshot({ path: join(shots, 'default-dark.png'), fullPage: true });
  await close(dark);
  const phone = await open(env, '', { viewport: { width: 390, height: 844 } });
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll on a phone (overflow ${overflow}px)`);
  await phone.screenshot({ path: join(shots, 'phone.png'), fullPage: true });
  await close(phone);
});

// ---- Time and communication --------------------------------------------------------------

test('time and communication for LLaMA-3.1-70B tp=8 pp=4 dp=2 equal the CLI; Gantt and roofline follow the report', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  const report = cliReport(plan70b());
  assert.ok(report.communication.length > 0 && report.pipeline.timeline_complete);
  await expectStages(page, report);
  await expectTime(page, report);

  // The step bar and the table: one segment and one row per part that takes time (zero parts left out).
  const parts = Object.entries(report.time.breakdown);
  assert.ok(parts.some(([, v]) => v === 0), 'this plan has parts that take no time');
  assert.equal(await page.locator('#time-chart rect.seg').count(), parts.filter(([, v]) => v > 0).length);
  assert.equal(await page.locator('#time-table tbody tr').count(), parts.filter(([, v]) => v > 0).length);
  assert.equal(await page.locator('#comm-table tbody tr:not(.subtotal)').count(), report.communication.length);
  assert.equal(await page.locator('#comm-table tr.subtotal').count(), new Set(report.communication.map((c) => c.dimension)).size);

  // Gantt: one row per stage, every timeline event one block with its title, F and B both drawn.
  await lowerChartsDrawn(page);
  const t = report.pipeline.timeline;
  assert.equal(await page.locator('#gantt .gantt-row').count(), report.pipeline.stages.length);
  const forward = t.kind.filter((k) => k === 'F').length;
  assert.ok(forward > 0 && forward < t.kind.length);
  assert.equal(await page.locator('#gantt rect.block-F').count(), forward);
  assert.equal(await page.locator('#gantt rect.block-B').count(), t.kind.length - forward);
  assert.equal(await page.locator('#gantt rect.block > title').count(), report.pipeline.timeline_events);
  const first = await page.locator('#gantt .gantt-row[data-stage="0"] rect.block > title').first().textContent();
  assert.match(first, /^stage 0, F microbatch 0 chunk 0, 0–[\d.]+ (s|ms)$/);

  // Roofline: one dot per op with forward FLOPs.
  const ops = report.modules.filter((m) => m.kind === 'op' && m.fwd_flops > 0);
  assert.ok(ops.length > 3);
  assert.equal(await page.locator('#roofline circle.dot').count(), ops.length);
  assert.match(await page.textContent('#roofline'), /Arithmetic intensity \(FLOP\/byte\)/);

  const text = await page.textContent('#time-section');
  assert.ok(!/\bNaN\b|Infinity|undefined|null/.test(text), 'no NaN/Infinity/undefined/null in the time section');
  assert.ok(text.includes(report.flops.convention), 'the FLOPs convention is shown');
  await page.locator('#time-section').screenshot({ path: join(shots, 'time-light.png') });
  await close(page);
});

test('train_tokens and price_per_gpu_hour add the training run: days, GPU-hours and cost equal the CLI', async () => {
  const page = await open(env);
  await page.fill('#f-training-train_tokens', '1e12');
  await page.fill('#f-hardware-price_per_gpu_hour', '2');
  const scenario = structuredClone(DEFAULTS);
  scenario.training.train_tokens = 1e12;
  scenario.hardware.price_per_gpu_hour = 2;
  const report = cliReport(scenario);
  assert.ok(report.training_run.cost > 0);
  for (const field of ['gpu_hours', 'cost', 'days', 'tokens'])
    await expectMetric(page, `training_run.${field}`, report.training_run[field]);
  await expectTime(page, report);
  await page.fill('#f-training-train_tokens', '');
  await page.waitForFunction(() => !document.querySelector('[data-metric="training_run.gpu_hours"]'));
  await close(page);
});

test('the new fields round-trip through a copied share link', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  await page.fill('#f-training-train_tokens', '2e12');
  await page.fill('#f-hardware-price_per_gpu_hour', '2.5');
  await openMore(page, 'parallel');
  await page.selectOption('#f-parallel-schedule', 'gpipe');
  await openMore(page, 'hardware');
  assert.equal(await page.inputValue('#f-hardware-matmul_efficiency'), '0.8', 'preset value shown');
  await page.fill('#f-hardware-matmul_efficiency', '0.7');
  await page.fill('#f-hardware-inter_node_gbps', '25');
  await page.fill('#f-hardware-sm_count', '114');
  const scenario = plan70b();
  scenario.training.train_tokens = 2e12;
  scenario.parallel.schedule = 'gpipe';
  Object.assign(scenario.hardware, { price_per_gpu_hour: 2.5, matmul_efficiency: 0.7, inter_node_gbps: 25, sm_count: 114 });
  const report = cliReport(scenario);
  await expectStages(page, report);
  await expectTime(page, report);
  await expectMetric(page, 'training_run.cost', report.training_run.cost);
  assert.ok(await page.locator('[data-field="hardware.matmul_efficiency"]').evaluate((n) => n.classList.contains('is-override')));

  await page.click('#copy-link');
  await page.waitForFunction(() => document.querySelector('#share-url')?.value.includes('schedule'));
  const link = await page.inputValue('#share-url');
  for (const key of ['training.train_tokens=2000000000000', 'parallel.schedule=gpipe', 'hardware.price_per_gpu_hour=2.5',
    'hardware.matmul_efficiency=0.7', 'hardware.inter_node_gbps=25', 'hardware.sm_count=114'])
    assert.ok(link.includes(key), `${key} in ${link}`);
  const before = await metrics(page);
  assert.ok(Object.keys(before).some((k) => k.startsWith('communication.')));

  const other = await open(env, link.slice(env.server.url.length));
  await expectStages(other, report);
  await expectTime(other, report);
  assert.deepEqual(await metrics(other), before);
  assert.equal(await other.inputValue('#f-parallel-schedule'), 'gpipe');
  assert.equal(await other.inputValue('#f-training-train_tokens'), '2000000000000');
  assert.equal(await other.inputValue('#f-hardware-price_per_gpu_hour'), '2.5');
  assert.equal(await other.inputValue('#f-hardware-matmul_efficiency'), '0.7');
  assert.equal(await other.inputValue('#f-hardware-hbm_gbps'), '3350', 'untouched preset values still shown');
  await close(other);
  await close(page);
});

test('schedule=gpipe changes memory and time to the CLI values', async () => {
  const page = await open(env);
  await fillPlan70b(page);
  const scenario = plan70b();
  const oneF = cliReport(scenario);
  await expectStages(page, oneF);
  await openMore(page, 'parallel');
  await page.selectOption('#f-parallel-schedule', 'gpipe');
  scenario.parallel.schedule = 'gpipe';
  const gpipe = cliReport(scenario);
  assert.notEqual(gpipe.memory.per_device.total, oneF.memory.per_device.total);
  await expectStages(page, gpipe);
  await expectTime(page, gpipe);
  await lowerChartsDrawn(page);
  assert.match(await page.textContent('#gantt-legend'), /gpipe/);
  assert.equal(await page.locator('#gantt rect.block').count(), gpipe.pipeline.timeline_events);
  await close(page);
});

test('time section: dark theme, a phone screen, a long schedule and embed mode', async () => {
  // A v=1 link, written before the defaults changed, opens as it was written.
  const link = `#v=1&model.preset=llama-3.1-70b&training.global_batch=16&parallel.dp=2&parallel.tp=8&parallel.pp=4`;
  const old = structuredClone(V1_DEFAULTS);
  old.model.preset = 'llama-3.1-70b';
  Object.assign(old.parallel, { tp: 8, pp: 4, dp: 2 });
  old.training.global_batch = 16;
  const report = cliReport(old);
  const dark = await open(env, link, { colorScheme: 'dark' });
  await expectTime(dark, report);
  await lowerChartsDrawn(dark);
  await dark.locator('#time-section').screenshot({ path: join(shots, 'time-dark.png') });
  await close(dark);

  const phone = await open(env, link, { viewport: { width: 390, height: 844 } });
  await expectTime(phone, report);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `no horizontal page scroll on a phone (overflow ${overflow}px)`);
  await lowerChartsDrawn(phone);
  await phone.locator('#time-section').screenshot({ path: join(shots, 'time-phone.png') });
  await close(phone);

  // More than 800 blocks, each thinner than a few pixels: runs of passes (one rect per run, in a forward
  // and a backward lane; tests/web/page-readable.test.mjs checks them against the timeline); past the
  // engine's limit, a message.
  const long = structuredClone(DEFAULTS);
  long.model.preset = 'llama-3.1-70b';
  Object.assign(long.parallel, { tp: 8, pp: 4 });
  long.training.global_batch = 256;
  const longReport = cliReport(long);
  assert.ok(longReport.pipeline.timeline_events > 800 && longReport.pipeline.timeline_complete);
  const page = await open(env, `#scenario=${encodeURIComponent(JSON.stringify(long))}`);
  await expectTime(page, longReport);
  await lowerChartsDrawn(page);
  assert.equal(await page.getAttribute('#gantt svg', 'data-blocks'), String(longReport.pipeline.timeline_events));
  assert.equal(await page.locator('#gantt rect.block').count(), 0);
  assert.equal(await page.getAttribute('#gantt svg', 'data-mode'), 'runs');
  assert.ok((await page.locator('#gantt rect.run.block-F').count()) >= 1 && (await page.locator('#gantt rect.run.block-B').count()) >= 1);
  await page.fill('#f-training-global_batch', '4096');
  long.training.global_batch = 4096;
  const huge = cliReport(long);
  assert.equal(huge.pipeline.timeline_complete, false);
  await expectMetric(page, 'time.step_seconds', huge.time.step_seconds);
  assert.match(await page.textContent('#gantt'), /too many blocks/);
  await close(page);

  const embed = await open(env, `?embed=1${link}`, { viewport: { width: 800, height: 600 } });
  await expectMetric(embed, 'time.step_seconds', report.time.step_seconds);
  for (const m of ['time.step_seconds', 'time.mfu', 'throughput.tokens_per_second'])
    assert.ok(await embed.isVisible(`[data-metric="${m}"]`), `${m} visible in embed mode`);
  for (const sel of ['#comm-table', '#time-table', '#gantt', '#roofline'])
    assert.equal(await embed.isVisible(sel), false, `${sel} hidden in embed mode`);
  await close(embed);
});

test('the price per GPU-hour survives a change of device', async () => {
  const page = await open(env);
  await page.fill('#f-training-train_tokens', '1e12');
  await page.fill('#f-hardware-price_per_gpu_hour', '2');
  await page.selectOption('#f-hardware-preset', 'a100-sxm-80gb');
  const scenario = structuredClone(DEFAULTS);
  scenario.training.train_tokens = 1e12;
  scenario.hardware = { preset: 'a100-sxm-80gb', price_per_gpu_hour: 2 };
  const report = cliReport(scenario);
  await expectMetric(page, 'training_run.cost', report.training_run.cost);
  assert.equal(await page.inputValue('#f-hardware-price_per_gpu_hour'), '2');
  await close(page);
});


async function searchPanelReady(page) {
  await page.locator('#search-section').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('#s-devices').value !== '' && document.querySelector('#s-batch').value !== '');
}

test('Find a plan: the engine ranks plans in the worker; a row loads into the form; the search is in the link', async () => {
  const page = await open(env);
  await searchPanelReady(page);
  await page.fill('#s-devices', '8');
  await page.fill('#s-batch', '64');
  await page.click('#s-run');
  await page.waitForSelector('#s-table tbody tr');
  const status = await page.textContent('#s-status');
  assert.match(status, /plans on 8 devices: [\d,]+ fit/);
  // The first row is what the CLI finds for the same search.
  const search = { devices: 8, global_batch: 64, rank_by: 'step_time', question: 'best_plan', frameworks: ['megatron'],
    tp_within_node: true, memory_margin: 0, top: 20 };
  const found = JSON.parse(execFileSync(cli, ['search', '--format', 'json', '-'], { input: JSON.stringify({ ...DEFAULTS, search }) }));
  const first = found.plans[0];
  const cells = await page.locator('#s-table tbody tr').first().locator('td').allTextContents();
  assert.equal(cells[1], first.framework);
  assert.equal(cells[7], duration(first.time.step_seconds));
  assert.equal(await page.locator('#s-pareto svg .pareto-dot').count(), found.pareto.length);
  // Load: the form takes the plan, and the estimate is that plan's.
  await page.locator('#s-table tbody tr').first().locator('button.load-plan').click();
  await page.waitForFunction((tp) => document.querySelector('#f-parallel-tp').value === String(tp), first.parallel.tp);
  assert.equal(await page.inputValue('#f-parallel-dp'), String(first.parallel.dp));
  // The link carries the search; opened elsewhere it shows it, and runs it on a click.
  const url = new URL(page.url());
  assert.match(decodeURIComponent(url.hash), /search=\{.*"devices":8/);
  const again = await open(env, url.hash);
  await again.waitForFunction(() => /This link carries a plan search/.test(document.querySelector('#s-status').textContent));
  await again.click('#s-run');
  await again.waitForSelector('#s-table tbody tr');
  assert.equal(await again.inputValue('#s-devices'), '8');
  await close(again);
  await page.screenshot({ path: join(shots, 'search.png'), fullPage: false });
  await close(page);
});

test('Find a plan: a long search shows progress and can be cancelled; bad settings name the field', async () => {
  const page = await open(env);
  await searchPanelReady(page);
  await page.fill('#s-devices', '8-1024');
  await page.fill('#s-batch', '1024');
  for (const f of ['deepspeed', 'fsdp']) await page.check(`#s-fw-${f}`);
  await page.check('#s-offload');
  await page.click('#s-run');
  await page.waitForFunction(() => Number(document.querySelector('#s-progress').value) > 0);
  await page.click('#s-cancel');
  await page.waitForFunction(() => document.querySelector('#s-status').textContent === 'Search cancelled.');
  assert.equal(await page.isVisible('#s-progress'), false);
  await page.fill('#s-devices', 'many');
  await page.click('#s-run');
  await page.waitForFunction(() => /could not run/.test(document.querySelector('#s-status').textContent));
  assert.match(await page.textContent('#s-status'), /\/search\/devices/);
  await close(page);
});

test('DeepSpeed\'s reduce bucket: a link sets it, the form shows it, the figures are the CLI\'s', async () => {
  const s = { ...DEFAULTS, framework: 'deepspeed', parallel: { dp: 8, tp: 1, pp: 1, zero: 2, reduce_bucket_size: 200000000 } };
  const page = await open(env, link(s));
  await openMore(page, 'parallel');
  assert.equal(await page.inputValue('#f-parallel-reduce_bucket_size'), '200000000');
  await expectMetric(page, 'memory.per_device.total', cliReport(s).memory.per_device.total);
  // Another bucket, another total: the field reaches the engine.
  await page.fill('#f-parallel-reduce_bucket_size', '500000000');
  await expectMetric(page, 'memory.per_device.total',
    cliReport({ ...s, parallel: { ...s.parallel, reduce_bucket_size: 500000000 } }).memory.per_device.total);
  await close(page);
});
